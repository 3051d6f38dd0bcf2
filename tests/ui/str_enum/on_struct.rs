use singletable::StrEnum;

#[derive(StrEnum)]
struct Status {
    code: String,
}

fn main() {}
