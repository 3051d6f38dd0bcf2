use singletable::{Entity, Table};

#[derive(Table)]
#[table(
    name = "Desk",
    gsi1,
    gsi2(pk(tenantId = S, region = N), sk(status = S, createdAt = N)),
    entities(Case, Agent)
)]
pub struct Desk;

#[derive(Entity)]
#[entity(table = Desk, rename_all = "camelCase")]
#[pk("CASE#<id>")]
#[sk("CASE")]
#[gsi2(pk(tenant_id, region), sk(status, created_at))]
#[access(cases_by_status, index = gsi2)]
pub struct Case {
    pub id: String,
    pub tenant_id: String,
    pub region: u32,
    pub status: String,
    pub created_at: i64,
}

#[derive(Entity)]
#[entity(table = Desk)]
#[pk("AGENT#<id>")]
#[sk("AGENT")]
#[gsi1(pk = "TEAM#<team>", sk = "AGENT#<id>")]
#[access(agents_of_team, index = gsi1)]
pub struct Agent {
    pub id: String,
    pub team: String,
}

/// The design document shows the index's typed attributes as columns
/// and its access pattern's key condition; the cross-entity checks
/// pass (one entity on the multi-attribute index).
#[test]
fn design_document_shows_multi_attribute_index() {
    let layout = singletable_tools::design::layout_table::<Desk>();
    assert_eq!(
        layout.lines().next(),
        Some("| entityType | PK | SK | GSI1PK | GSI1SK | tenantId | region | status | createdAt |")
    );
    assert!(
        layout.contains("| Case | `CASE#<id>` | `CASE` |  |  | `<tenantId>` (S) | `<region>` (N) | `<status>` (S) | `<createdAt>` (N) |"),
        "{layout}"
    );
    assert!(
        layout.contains(
            "| Agent | `AGENT#<id>` | `AGENT` | `TEAM#<team>` | `AGENT#<id>` |  |  |  |  |"
        ),
        "{layout}"
    );
    let access = singletable_tools::design::access_table::<Desk>();
    assert!(
        access.contains("| cases_by_status | GSI2 | `tenantId = :tenantId` and `region = :region`, sort `status`, `createdAt` (equality on a prefix, then one range condition) | Case |"),
        "{access}"
    );
    assert_eq!(
        Case::SHAPE.attribute_indexes[0].sort,
        ["status", "createdAt"]
    );
}
