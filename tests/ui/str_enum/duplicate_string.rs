use singletable::StrEnum;

#[derive(StrEnum)]
enum Status {
    Pending,
    #[str_enum(rename = "Pending")]
    Waiting,
}

fn main() {}
