use singletable::Table;

#[derive(Table)]
#[table(name = "Tickets", gsi1(pk(a = S, b = S, c = S, d = S, e = S)))]
pub struct Tickets;

fn main() {}
