//! An issue tracker on one table, in the shape of the published
//! version-control design: accounts, repositories, issues, pull requests,
//! comments and subscriptions; most item collections live on global
//! indexes ("everything an account owns" on GSI1, an issue's thread on
//! GSI3), the table partition of a repository holds the repository with
//! its tickets and subscribers.

use std::collections::{BTreeMap, BTreeSet};

use singletable::{Collection, Document, Entity, StrEnum, Table};

/// The tracker's one table.
#[derive(Table)]
#[table(
    name = "Tracker",
    gsi1,
    gsi2,
    gsi3,
    entities(Account, Repo, Issue, Pull, Comment, Subscription),
    collections(Owned, Tickets, RepoPage, Thread)
)]
pub struct Tracker;

/// Whether a ticket is open.
#[derive(StrEnum, Debug, Clone, Copy, PartialEq, Eq)]
#[str_enum(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Status {
    Open,
    Closed,
}

/// A reviewer's verdict on a pull request.
#[derive(StrEnum, Debug, Clone, Copy, PartialEq, Eq)]
#[str_enum(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Verdict {
    Pending,
    Approved,
    ChangesRequested,
}

/// A user or an organisation. By name (GetItem); first in its own GSI1
/// partition, before what it owns.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = Tracker, name = "Account", rename_all = "camelCase")]
#[pk("ACCOUNT#<name>")]
#[sk("ACCOUNT")]
#[gsi1(pk = "ACCOUNT#<name>", sk = "ACCOUNT")]
pub struct Account {
    pub name: String,
    /// One account per address: a marker item holds each value.
    #[attr(unique)]
    pub email: String,
    #[attr(created_at)]
    pub created_at: String,
}

/// A repository's settings, stored as a map.
#[derive(Document, Debug, Clone, PartialEq, Default)]
#[document(rename_all = "camelCase")]
pub struct Settings {
    pub default_branch: String,
    pub private: bool,
}

/// A repository: by owner and name; in its owner's GSI1 partition; on
/// GSI2 by last update, across the tracker (sharded four ways).
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = Tracker, name = "Repo", rename_all = "camelCase")]
#[pk("REPO#<owner>#<name>")]
#[sk("REPO")]
#[gsi1(pk = "ACCOUNT#<owner>", sk = "OWNED#REPO#<name>")]
#[gsi2(pk = "REPOS", sk = "UPDATED#<updated_at>", shards = 4)]
#[access(recently_updated, index = gsi2)]
pub struct Repo {
    pub owner: String,
    pub name: String,
    pub description: String,
    pub topics: BTreeSet<String>,
    pub stars: u32,
    pub settings: Settings,
    pub updated_at: String,
}

/// An issue: in its repository's partition; in its author's GSI1
/// partition; on GSI2 by repository and status, newest first; heads its
/// thread on GSI3.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = Tracker, name = "Issue", rename_all = "camelCase")]
#[pk("REPO#<owner>#<repo>")]
#[sk("ISSUE#<number>")]
#[gsi1(
    pk = "ACCOUNT#<author>",
    sk = "OWNED#TICKET#ISSUE#<owner>#<repo>#<number>"
)]
#[gsi2(pk = "TICKETS#<owner>#<repo>#<status>", sk = "ISSUE#<created_at>")]
#[gsi3(pk = "THREAD#<owner>#<repo>#<number>", sk = "HEAD#ISSUE")]
#[access(issues_by_status, index = gsi2)]
pub struct Issue {
    pub owner: String,
    pub repo: String,
    pub number: u32,
    pub title: String,
    pub author: String,
    pub status: Status,
    pub labels: BTreeSet<String>,
    /// Stamped on create (empty until then), and part of the GSI2 key.
    #[attr(created_at)]
    pub created_at: String,
}

/// A pull request, keyed like an issue; its reviewers are a map of
/// verdicts.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = Tracker, name = "Pull", rename_all = "camelCase")]
#[pk("REPO#<owner>#<repo>")]
#[sk("PULL#<number>")]
#[gsi1(
    pk = "ACCOUNT#<author>",
    sk = "OWNED#TICKET#PULL#<owner>#<repo>#<number>"
)]
#[gsi2(pk = "TICKETS#<owner>#<repo>#<status>", sk = "PULL#<created_at>")]
#[gsi3(pk = "THREAD#<owner>#<repo>#<number>", sk = "HEAD#PULL")]
#[access(pulls_by_status, index = gsi2)]
pub struct Pull {
    pub owner: String,
    pub repo: String,
    pub number: u32,
    pub title: String,
    pub author: String,
    pub status: Status,
    pub reviewers: BTreeMap<String, Verdict>,
    pub created_at: String,
}

/// A comment on an issue or pull request: by id; in its ticket's thread
/// on GSI3, oldest first; in its author's GSI1 partition.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = Tracker, name = "Comment", rename_all = "camelCase")]
#[pk("COMMENT#<id>")]
#[sk("COMMENT")]
#[gsi1(pk = "ACCOUNT#<author>", sk = "OWNED#COMMENT#<id>")]
#[gsi3(pk = "THREAD#<owner>#<repo>#<number>", sk = "REPLY#<created_at>#<id>")]
pub struct Comment {
    pub id: String,
    pub owner: String,
    pub repo: String,
    pub number: u32,
    pub author: String,
    pub body: String,
    pub created_at: String,
}

/// An account watching a repository: in the repository's partition (its
/// subscribers) and in the account's GSI1 partition (its subscriptions).
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = Tracker, name = "Subscription", rename_all = "camelCase")]
#[pk("REPO#<owner>#<repo>")]
#[sk("SUB#<subscriber>")]
#[gsi1(pk = "ACCOUNT#<subscriber>", sk = "SUBSCRIBED#<owner>#<repo>")]
#[access(subscribers)]
#[access(subscriptions, index = gsi1)]
pub struct Subscription {
    pub owner: String,
    pub repo: String,
    pub subscriber: String,
}

/// Everything an account owns, on GSI1: its repositories, tickets and
/// comments (one Query), in the account's own GSI1 partition.
#[derive(Collection, Debug, Clone, PartialEq)]
#[collection(index = gsi1, sk_prefix = "OWNED#", partition_from = Account)]
pub enum Owned {
    Repo(Repo),
    Issue(Issue),
    Pull(Pull),
    Comment(Comment),
}

/// The tickets an account opened: the sub-collection `OWNED#TICKET#`.
#[derive(Collection, Debug, Clone, PartialEq)]
#[collection(index = gsi1, sk_prefix = "OWNED#TICKET#", partition_from = Account)]
pub enum Tickets {
    Issue(Issue),
    Pull(Pull),
}

/// A repository with its tickets and subscribers: its table partition.
#[derive(Collection, Debug, Clone, PartialEq)]
pub enum RepoPage {
    Repo(Repo),
    Issue(Issue),
    Pull(Pull),
    Subscription(Subscription),
}

/// A ticket with its comments, oldest first: its GSI3 partition.
#[derive(Collection, Debug, Clone, PartialEq)]
#[collection(index = gsi3)]
pub enum Thread {
    Issue(Issue),
    Pull(Pull),
    Comment(Comment),
}
