//! What an update has set of the fields its index keys need, in its type.
//!
//! A key template built from two or more fields outside the primary key
//! (`OWNER#<owner>#<team>`, `COMMENT#<updated_at>#<seen>`) can only be
//! rebuilt by an update that sets all of them, or that is given the item
//! the application holds ([`Update::knowing`](crate::Update::knowing)).
//! The derive knows which updates those are, so it says so at compile
//! time: `Entity::update(..)` starts in a state with one [`Unset`] per
//! such field; `set` of the field's handle (a [`KeyField`] with a
//! [`Slot`]) turns it [`Given`]; `.knowing(&item)` turns the whole state
//! [`Known`]. `execute` (and [`Transaction::update`]) need a state the
//! derive marked [`Ready`]: one in which every key the update changes can
//! be rebuilt. An update whose fields are chosen at run time (set in
//! branches) can opt out with
//! [`Update::check_at_run_time`](crate::Update::check_at_run_time); it is
//! then refused before sending, as [`Error::UpdateNeedsItem`], when it
//! cannot rebuild a key.
//!
//! Sparse conditions (`when = field`) and unique fields are checked when
//! the update is sent: whether they need the held item depends on the
//! values set, not on which fields are.
//!
//! [`KeyField`]: crate::KeyField
//! [`Transaction::update`]: crate::Transaction::update
//! [`Error::UpdateNeedsItem`]: crate::Error::UpdateNeedsItem
//!
//! ```
//! use singletable::{Db, Embedded, Entity, Table};
//!
//! #[derive(Table)]
//! #[table(name = "App", gsi1)]
//! pub struct App;
//!
//! #[derive(Entity, Clone)]
//! #[entity(table = App)]
//! #[pk("DOC#<id>")]
//! #[sk("DOC")]
//! #[gsi1(pk = "OWNER#<owner>#<team>", sk = "DOC#<id>")]
//! pub struct Doc { pub id: String, pub owner: String, pub team: String }
//!
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! let db = Db::<Embedded>::in_memory::<App>("App")?;
//! let doc = Doc { id: "d".into(), owner: "ana".into(), team: "red".into() };
//! db.put(&doc).await?;
//! let f = Doc::fields();
//! // Both fields of GSI1PK set: the key is rebuilt from them.
//! Doc::update("d").set(f.owner, "bo".to_owned()).set(f.team, "blue".to_owned()).execute(&db).await?;
//! // One of them, and the held item for the other.
//! let held = db.get::<Doc>(Doc::key("d")?).await?.unwrap();
//! Doc::update("d").set(f.owner, "cy".to_owned()).knowing(&held).execute(&db).await?;
//! # Ok::<(), singletable::Error>(())
//! # }).unwrap();
//! ```
//!
//! Setting `owner` alone does not compile:
//!
//! ```compile_fail
//! # use singletable::{Db, Embedded, Entity, Table};
//! # #[derive(Table)]
//! # #[table(name = "App", gsi1)]
//! # pub struct App;
//! # #[derive(Entity, Clone)]
//! # #[entity(table = App)]
//! # #[pk("DOC#<id>")]
//! # #[sk("DOC")]
//! # #[gsi1(pk = "OWNER#<owner>#<team>", sk = "DOC#<id>")]
//! # pub struct Doc { pub id: String, pub owner: String, pub team: String }
//! # async fn f(db: Db<Embedded>) -> Result<(), singletable::Error> {
//! Doc::update("d").set(Doc::fields().owner, "bo".to_owned()).execute(&db).await // needs `team`
//! # }
//! ```

use std::marker::PhantomData;

/// A field an index key needs that the update has not set; `F` is a type
/// the derive names after the field, so that a compile error says which.
///
/// ```
/// use singletable::__private::update::{Ready, Unset};
/// fn ready<E: Ready<S>, S>() {}
/// ready::<u8, ()>(); // an entity without such fields starts ready
/// let _ = Unset::<u8>::default();
/// ```
pub struct Unset<F>(PhantomData<fn() -> F>);

/// A field an index key needs that the update sets (`F` names it).
///
/// ```
/// let _ = singletable::__private::update::Given::<u8>::default();
/// ```
pub struct Given<F>(PhantomData<fn() -> F>);

macro_rules! marker_impls {
    ($($ty:ident),+) => {$(
        impl<F> Default for $ty<F> {
            fn default() -> Self {
                Self(PhantomData)
            }
        }
        impl<F> Clone for $ty<F> {
            fn clone(&self) -> Self {
                *self
            }
        }
        impl<F> Copy for $ty<F> {}
        impl<F> std::fmt::Debug for $ty<F> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{}<{}>", stringify!($ty), std::any::type_name::<F>())
            }
        }
    )+};
}
marker_impls!(Unset, Given);

/// A slot's state once its field is set: [`Given`], whatever it was.
///
/// ```
/// use singletable::__private::update::{Given, SetNow, Unset};
/// fn given<S: SetNow<On = Given<u8>>>() {}
/// given::<Unset<u8>>();
/// given::<Given<u8>>();
/// ```
pub trait SetNow {
    /// The state once set.
    type On;
}
impl<F> SetNow for Unset<F> {
    type On = Given<F>;
}
impl<F> SetNow for Given<F> {
    type On = Given<F>;
}

/// The state of an update given the held item (`.knowing(&item)`): every
/// key can be rebuilt.
///
/// ```
/// use singletable::__private::update::{Known, Ready};
/// fn ready<E: Ready<S>, S>() {}
/// ready::<u8, Known>();
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct Known;

/// The state of an update checked when it is sent
/// ([`Update::check_at_run_time`](crate::Update::check_at_run_time)).
///
/// ```
/// use singletable::__private::update::{Dynamic, Ready};
/// fn ready<E: Ready<S>, S>() {}
/// ready::<u8, Dynamic>();
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct Dynamic;

/// The position of a field in its entity's update state: the third type
/// parameter of the field's [`KeyField`](crate::KeyField) handle.
///
/// ```
/// use singletable::__private::update::{Given, Mark, Slot, Unset};
/// struct Owner;
/// struct Team;
/// fn after<S: Mark<Slot<1>, Out = (Unset<Owner>, Given<Team>)>>() {}
/// after::<(Unset<Owner>, Unset<Team>)>();
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct Slot<const I: usize>;

/// The state after setting a field with marker `M`: `()` (a field no
/// key needs beside others) changes nothing; `Slot<I>` marks position `I`
/// [`Given`].
///
/// ```
/// use singletable::__private::update::{Known, Mark, Slot};
/// fn after<S: Mark<Slot<0>, Out = Known>>() {}
/// after::<Known>();
/// ```
pub trait Mark<M> {
    /// The state after the field is set.
    type Out;
}

impl<S> Mark<()> for S {
    type Out = S;
}

impl<const I: usize> Mark<Slot<I>> for Known {
    type Out = Known;
}

impl<const I: usize> Mark<Slot<I>> for Dynamic {
    type Out = Dynamic;
}

/// `impl Mark<Slot<I>>` for a tuple state: the parameters before and
/// after position `I` stay, the one at `I` becomes [`Given`] (of its field).
macro_rules! mark_at {
    ($i:literal; $($before:ident),*; $at:ident; $($after:ident),*) => {
        impl<$($before,)* $at: SetNow, $($after),*> Mark<Slot<$i>> for ($($before,)* $at, $($after,)*) {
            type Out = ($($before,)* <$at as SetNow>::On, $($after,)*);
        }
    };
}

/// The most fields an entity's update state tracks; an entity whose keys
/// need more is checked when its updates are sent (the derive's own
/// constant must match; the test below holds them together).
#[cfg(test)]
const MAX_SLOTS: usize = 6;

mark_at!(0; ; A; );
mark_at!(0; ; A; B);
mark_at!(1; A; B; );
mark_at!(0; ; A; B, C);
mark_at!(1; A; B; C);
mark_at!(2; A, B; C; );
mark_at!(0; ; A; B, C, D);
mark_at!(1; A; B; C, D);
mark_at!(2; A, B; C; D);
mark_at!(3; A, B, C; D; );
mark_at!(0; ; A; B, C, D, F);
mark_at!(1; A; B; C, D, F);
mark_at!(2; A, B; C; D, F);
mark_at!(3; A, B, C; D; F);
mark_at!(4; A, B, C, D; F; );
mark_at!(0; ; A; B, C, D, F, G);
mark_at!(1; A; B; C, D, F, G);
mark_at!(2; A, B; C; D, F, G);
mark_at!(3; A, B, C; D; F, G);
mark_at!(4; A, B, C, D; F; G);
mark_at!(5; A, B, C, D, F; G; );

/// The states `S` in which an update of the entity can be sent: the derive
/// implements it for every combination of [`Unset`] and [`Given`] in which
/// each index key the update changes can be rebuilt; [`Known`],
/// [`Dynamic`] and `()` (an entity without such keys) always are.
///
/// ```
/// use singletable::__private::update::{Given, Ready};
/// # use singletable::{Entity, Table};
/// # #[derive(Table)]
/// # #[table(name = "App", gsi1)]
/// # pub struct App;
/// #[derive(Entity)]
/// #[entity(table = App)]
/// #[pk("DOC#<id>")]
/// #[sk("DOC")]
/// #[gsi1(pk = "OWNER#<owner>#<team>", sk = "DOC#<id>")]
/// pub struct Doc { pub id: String, pub owner: String, pub team: String }
///
/// fn ready<E: Ready<S>, S>() {}
/// fn state<E: Ready<S>, S>(_: &singletable::Update<E, S>) {}
/// state(&Doc::update("d").set(Doc::fields().owner, "bo".into()).set(Doc::fields().team, "blue".into()));
/// ```
#[diagnostic::on_unimplemented(
    message = "this update of `{Self}` changes an index key it cannot rebuild from the fields it sets",
    label = "in state `{S}`, a key is half-built: `Unset<field>` is a field it needs that the update does not set",
    note = "a key template built from several fields (an `updated_at` stamp counts: every update sets it) needs all of them: set the missing fields in the same update, or give the item you hold with `.knowing(&item)`",
    note = "the design document (`singletable::design::document`) lists, per entity, the updates that need the held item; `.check_at_run_time()` defers this check to when the update is sent"
)]
pub trait Ready<S> {}

impl<E> Ready<()> for E {}
impl<E> Ready<Known> for E {}
impl<E> Ready<Dynamic> for E {}

#[cfg(test)]
mod tests {
    use super::*;

    /// The derive tracks at most `MAX_SLOTS` fields (its own constant of
    /// the same name): every position of a state that wide can be marked.
    #[test]
    fn the_widest_state_the_derive_emits_can_be_marked() {
        type U = Unset<()>;
        type Wide = (U, U, U, U, U, U);
        fn marks<S: Mark<Slot<0>> + Mark<Slot<{ MAX_SLOTS - 1 }>>>() {}
        marks::<Wide>();
        assert_eq!(
            MAX_SLOTS, 6,
            "the macros' update_state::MAX_SLOTS must change with it"
        );
    }
}
