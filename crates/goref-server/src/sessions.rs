//! Sessions and secrets: random tokens and seat secrets, kept as their SHA-256, and the
//! account a token opens. Games (seats by token), accounts, the lobby and tournaments all
//! ask here; it reads the store only.

use axum::http::{header, HeaderMap};
use sha2::{Digest, Sha256};

use crate::error::{ApiError, NoSession};
use crate::store::Store;
use crate::wire::Account;

/// `bytes` random bytes as lower-case hex.
#[must_use]
pub fn random_hex(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    getrandom::fill(&mut buf).expect("operating system randomness");
    buf.iter().map(|b| format!("{b:02x}")).collect()
}

/// SHA-256 of a secret or token, lower-case hex (what the store keeps).
#[must_use]
pub fn hash_secret(secret: &str) -> String {
    let digest = Sha256::digest(secret.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// Compares two strings in time independent of where they differ.
#[must_use]
pub fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// The account of a session token, or why not.
///
/// # Errors
///
/// 401 `bad_token` for no such session, 500 `storage` when the store fails.
pub async fn account_of_token(store: &dyn Store, token: &str) -> Result<Account, ApiError> {
    if token.len() > 128 {
        return Err(ApiError::BadToken(NoSession::Unknown));
    }
    match store.session(&hash_secret(token)).await {
        Ok(Some(account)) => Ok(account),
        Ok(None) => Err(ApiError::BadToken(NoSession::Ended)),
        Err(e) => Err(ApiError::storage(&e)),
    }
}

/// The account of the request's `Authorization: Bearer TOKEN`, or why not.
///
/// # Errors
///
/// As [`account_of_token`]; 401 when there is no token.
pub async fn account_of_request(
    store: &dyn Store,
    headers: &HeaderMap,
) -> Result<Account, ApiError> {
    match bearer(headers) {
        Some(token) => account_of_token(store, token).await,
        None => Err(ApiError::BadToken(NoSession::NoToken)),
    }
}

fn bearer(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::AUTHORIZATION)?
        .to_str()
        .ok()?
        .strip_prefix("Bearer ")
}
