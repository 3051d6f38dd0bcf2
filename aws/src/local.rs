//! What a client of DynamoDB Local signs its requests with.
//!
//! DynamoDB Local (without `-sharedDb`) keeps one database per access key
//! id and region: a table created by a client signing with key `A` in
//! `us-east-1` is invisible to a client signing with key `B`, or with `A`
//! in `eu-west-1`, though both talk to the same endpoint. So `Db::local`
//! and `StreamReader::local` sign as every other client of the same
//! DynamoDB Local on this machine does (the AWS CLI, boto3, a plain SDK
//! client, NoSQL Workbench): with the standard settings, resolved in the
//! SDK's order, and fall back to fixed values only where nothing is set.

use std::borrow::Cow;
use std::future::Future;
use std::task::{Context, Poll, Waker};

use aws_config::profile::ProfileSet;
use aws_types::os_shim_internal::{Env, Fs};

/// The access key id used when neither the environment nor the selected
/// profile names one.
///
/// ```
/// assert_eq!(singletable_aws::FALLBACK_ACCESS_KEY_ID, "test");
/// ```
pub const FALLBACK_ACCESS_KEY_ID: &str = "test";
/// The secret access key used with [`FALLBACK_ACCESS_KEY_ID`] (DynamoDB
/// Local accepts any).
///
/// ```
/// assert_eq!(singletable_aws::FALLBACK_SECRET_ACCESS_KEY, "test");
/// ```
pub const FALLBACK_SECRET_ACCESS_KEY: &str = "test";
/// The region used when neither the environment nor the selected profile
/// names one.
///
/// ```
/// assert_eq!(singletable_aws::FALLBACK_REGION, "us-east-1");
/// ```
pub const FALLBACK_REGION: &str = "us-east-1";

/// The access key and region a client of DynamoDB Local signs with, which
/// decide the database it sees (DynamoDB Local partitions tables by
/// access key id and region).
///
/// Resolved as the AWS SDKs and the CLI resolve them, so that `Db::local`
/// sees the tables other clients of the same DynamoDB Local created:
///
/// * credentials: `AWS_ACCESS_KEY_ID` with `AWS_SECRET_ACCESS_KEY` (and
///   `AWS_SESSION_TOKEN`) when both are set; otherwise the static keys
///   (`aws_access_key_id`, `aws_secret_access_key`, `aws_session_token`)
///   of the selected profile (`AWS_PROFILE`, else `default`) in
///   `~/.aws/credentials` and `~/.aws/config` (or `AWS_SHARED_CREDENTIALS_FILE`
///   and `AWS_CONFIG_FILE`); otherwise [`FALLBACK_ACCESS_KEY_ID`] /
///   [`FALLBACK_SECRET_ACCESS_KEY`];
/// * region: `AWS_REGION`, else `AWS_DEFAULT_REGION`, else the selected
///   profile's `region`, else [`FALLBACK_REGION`].
///
/// ```
/// use singletable_aws::LocalIdentity;
///
/// let from_env = LocalIdentity::from_sources(
///     &[("AWS_ACCESS_KEY_ID", "alice"), ("AWS_SECRET_ACCESS_KEY", "s"), ("AWS_REGION", "eu-west-1")],
///     &[],
/// );
/// assert_eq!((from_env.access_key_id.as_str(), from_env.region.as_str()), ("alice", "eu-west-1"));
///
/// let profile = "[profile dev]\nregion = ap-south-1\naws_access_key_id = bob\naws_secret_access_key = s\n";
/// let from_profile = LocalIdentity::from_sources(
///     &[("AWS_PROFILE", "dev"), ("AWS_CONFIG_FILE", "/cfg")],
///     &[("/cfg", profile)],
/// );
/// assert_eq!((from_profile.access_key_id.as_str(), from_profile.region.as_str()), ("bob", "ap-south-1"));
///
/// let nothing_set = LocalIdentity::from_sources(&[], &[]);
/// assert_eq!(nothing_set, LocalIdentity::fallback());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalIdentity {
    /// The access key id (DynamoDB Local's database is chosen by it).
    pub access_key_id: String,
    /// The secret access key (DynamoDB Local accepts any).
    pub secret_access_key: String,
    /// A session token, when the credentials have one.
    pub session_token: Option<String>,
    /// The region (DynamoDB Local's database is chosen by it too).
    pub region: String,
}

impl LocalIdentity {
    /// The fixed values used where nothing is set: `test` / `test` in
    /// `us-east-1`.
    ///
    /// ```
    /// let id = singletable_aws::LocalIdentity::fallback();
    /// assert_eq!((id.access_key_id.as_str(), id.region.as_str()), ("test", "us-east-1"));
    /// ```
    pub fn fallback() -> Self {
        Self {
            access_key_id: FALLBACK_ACCESS_KEY_ID.to_owned(),
            secret_access_key: FALLBACK_SECRET_ACCESS_KEY.to_owned(),
            session_token: None,
            region: FALLBACK_REGION.to_owned(),
        }
    }

    /// Resolved from this process's environment variables and AWS
    /// profile files (see [`LocalIdentity`]): what `Db::local` and
    /// `StreamReader::local` sign with.
    ///
    /// ```
    /// let id = singletable_aws::LocalIdentity::from_env();
    /// assert!(!id.access_key_id.is_empty() && !id.region.is_empty());
    /// ```
    pub fn from_env() -> Self {
        Self::resolve(&Env::real(), &Fs::real())
    }

    /// The same resolution over the environment variables `vars` and the
    /// files `files` (path, contents) instead of the process's: to see
    /// what a given setup resolves to without touching the process
    /// environment.
    ///
    /// ```
    /// use singletable_aws::LocalIdentity;
    ///
    /// // AWS_DEFAULT_REGION counts when AWS_REGION is unset; a key id
    /// // without its secret does not.
    /// let id = LocalIdentity::from_sources(&[("AWS_DEFAULT_REGION", "eu-central-1"), ("AWS_ACCESS_KEY_ID", "k")], &[]);
    /// assert_eq!((id.access_key_id.as_str(), id.region.as_str()), ("test", "eu-central-1"));
    /// ```
    pub fn from_sources(vars: &[(&str, &str)], files: &[(&str, &str)]) -> Self {
        Self::resolve(&Env::from_slice(vars), &Fs::from_slice(files))
    }

    /// The SDK credentials of this identity (both SDKs share the type).
    pub(crate) fn credentials(&self) -> aws_sdk_dynamodb::config::Credentials {
        aws_sdk_dynamodb::config::Credentials::new(
            self.access_key_id.clone(),
            self.secret_access_key.clone(),
            self.session_token.clone(),
            None,
            "singletable-local",
        )
    }

    fn resolve(env: &Env, fs: &Fs) -> Self {
        let var = |name: &str| env.get(name).ok().filter(|v| !v.trim().is_empty());
        let profiles = profiles(env, fs);
        let profile = profiles
            .as_ref()
            .and_then(|p| p.get_profile(p.selected_profile()));
        let setting = |key: &str| {
            profile
                .and_then(|p| p.get(key))
                .filter(|v| !v.trim().is_empty())
                .map(str::to_owned)
        };
        let fallback = Self::fallback();
        let (access_key_id, secret_access_key, session_token) =
            match (var("AWS_ACCESS_KEY_ID"), var("AWS_SECRET_ACCESS_KEY")) {
                (Some(id), Some(secret)) => (id, secret, var("AWS_SESSION_TOKEN")),
                _ => match (
                    setting("aws_access_key_id"),
                    setting("aws_secret_access_key"),
                ) {
                    (Some(id), Some(secret)) => (id, secret, setting("aws_session_token")),
                    _ => (fallback.access_key_id, fallback.secret_access_key, None),
                },
            };
        let region = var("AWS_REGION")
            .or_else(|| var("AWS_DEFAULT_REGION"))
            .or_else(|| setting("region"))
            .unwrap_or(fallback.region);
        Self {
            access_key_id,
            secret_access_key,
            session_token,
            region,
        }
    }
}

/// The profile files as the SDK reads them (`AWS_PROFILE`,
/// `AWS_CONFIG_FILE`, `AWS_SHARED_CREDENTIALS_FILE`, `~`); `None` when
/// there are none or they do not parse. The SDK's loader is async but
/// reads the files synchronously, so it finishes on its first poll; were
/// it ever to wait, no profile is used rather than blocking a runtime.
fn profiles(env: &Env, fs: &Fs) -> Option<ProfileSet> {
    let selected = env.get("AWS_PROFILE").ok().map(Cow::Owned);
    // The default files: `~/.aws/config` and `~/.aws/credentials`, or
    // where `AWS_CONFIG_FILE` and `AWS_SHARED_CREDENTIALS_FILE` say.
    let files = Default::default();
    let mut load = std::pin::pin!(aws_config::profile::load(fs, env, &files, selected));
    match load.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(Ok(set)) => Some(set),
        Poll::Ready(Err(_)) | Poll::Pending => None,
    }
}
