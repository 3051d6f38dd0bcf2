// An update that sets one field of a key built from two (no stamp among
// them), given no held item: a compile error at `execute`.
use singletable::{Db, Embedded, Entity, Table};

#[derive(Table)]
#[table(name = "App", gsi1, gsi2)]
pub struct App;

#[derive(Entity, Clone)]
#[entity(table = App, rename_all = "camelCase")]
#[pk("ISSUE#<issue>")]
#[sk("COMMENT#<id>")]
#[gsi1(pk = "ISSUE#<issue>", sk = "ISSUECOMMENT#<updated_at>#<reply_viewed>")]
#[gsi2(pk = "AUTHOR#<author>#<team>", sk = "COMMENT#<id>")]
pub struct Comment {
    pub issue: u32,
    pub id: String,
    pub body: String,
    pub reply_viewed: bool,
    pub author: String,
    pub team: String,
    #[attr(updated_at)]
    pub updated_at: i64,
}

async fn edit(db: &Db<Embedded>, held: &Comment) -> singletable::Result<()> {
    let f = Comment::fields();
    // Fine: `reply_viewed` is set beside the stamp; and the held item.
    Comment::update(1, "c").set(f.body, "x".to_owned()).set(f.reply_viewed, true).execute(db).await?;
    Comment::update(1, "c").set(f.body, "x".to_owned()).knowing(held).execute(db).await?;
    // GSI2PK needs `team` beside `author`.
    Comment::update(1, "c").set(f.reply_viewed, true).set(f.author, "bo".to_owned()).execute(db).await?;
    Ok(())
}

fn main() {
    let _ = edit;
}
