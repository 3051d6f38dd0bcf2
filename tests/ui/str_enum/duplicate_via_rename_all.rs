use singletable::StrEnum;

#[derive(StrEnum)]
#[str_enum(rename_all = "lowercase")]
enum Status {
    InTransit,
    Intransit,
}

fn main() {}
