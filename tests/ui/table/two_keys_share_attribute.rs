use singletable::Table;

#[derive(Table)]
#[table(name = "App", gsi1(pk = "GSI1KEY", sk = "GSI1KEY"))]
struct App;

fn main() {}
