use singletable::StrEnum;

#[derive(StrEnum)]
enum Status {
    Pending,
    Shipped(String),
}

fn main() {}
