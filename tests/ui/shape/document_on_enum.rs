use singletable::Document;

#[derive(Document)]
enum Address {
    Home,
}

fn main() {}
