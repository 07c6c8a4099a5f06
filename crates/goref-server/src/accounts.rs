//! Players' accounts: a name, a password kept as an Argon2id hash, a flag for programs and the
//! tournament director's role; sessions are random tokens, stored as their SHA-256.
//!
//! As on CGOS, logging in with a name nobody has creates the account with that password.

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;
use serde::{Deserialize, Serialize};

/// The longest account name, in characters.
pub const MAX_ACCOUNT_NAME: usize = 24;
/// The shortest password.
pub const MIN_PASSWORD: usize = 4;
/// The longest password, in bytes (hashing is costly; nobody needs more).
pub const MAX_PASSWORD: usize = 256;

/// An account as the server shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Account {
    /// The name, as first given (names are unique without regard to case).
    pub name: String,
    /// A program (logs in with `goref connect`), not a person.
    pub program: bool,
    /// The tournament director's role.
    pub td: bool,
    /// When it was created, unix milliseconds.
    pub created_ms: u64,
}

/// Why a login is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoginError {
    /// The name is empty, too long, or holds other than letters, digits, `-`, `_`, `.`.
    BadName,
    /// The password is shorter than [`MIN_PASSWORD`] or longer than [`MAX_PASSWORD`].
    BadPassword,
    /// No account has this name (and the request did not ask to create one).
    UnknownAccount,
    /// The password does not match.
    WrongPassword,
    /// Too many failed logins for this name or address: try later.
    TooManyAttempts,
    /// The account could not be read or written.
    Storage(String),
}

impl LoginError {
    /// A stable code for the wire.
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            LoginError::BadName => "bad_name",
            LoginError::BadPassword => "bad_password",
            LoginError::UnknownAccount => "unknown_account",
            LoginError::WrongPassword => "wrong_password",
            LoginError::TooManyAttempts => "too_many_attempts",
            LoginError::Storage(_) => "storage",
        }
    }
}

impl std::fmt::Display for LoginError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LoginError::BadName => write!(
                f,
                "names are 1 to {MAX_ACCOUNT_NAME} letters, digits, '-', '_' or '.'"
            ),
            LoginError::BadPassword => write!(
                f,
                "passwords are {MIN_PASSWORD} to {MAX_PASSWORD} bytes long"
            ),
            LoginError::UnknownAccount => f.write_str("no account has this name"),
            LoginError::WrongPassword => f.write_str("wrong password for this account"),
            LoginError::TooManyAttempts => f.write_str("too many failed logins: try later"),
            LoginError::Storage(e) => write!(f, "accounts could not be read or written: {e}"),
        }
    }
}

/// Checks an account name.
///
/// # Errors
///
/// [`LoginError::BadName`].
pub fn check_name(name: &str) -> Result<(), LoginError> {
    let ok = !name.is_empty()
        && name.chars().count() <= MAX_ACCOUNT_NAME
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if ok {
        Ok(())
    } else {
        Err(LoginError::BadName)
    }
}

/// Checks a password's length.
///
/// # Errors
///
/// [`LoginError::BadPassword`].
pub fn check_password(password: &str) -> Result<(), LoginError> {
    if (MIN_PASSWORD..=MAX_PASSWORD).contains(&password.len()) {
        Ok(())
    } else {
        Err(LoginError::BadPassword)
    }
}

/// The Argon2id hash of `password` with a fresh salt, as a PHC string. Slow by design (tens
/// of milliseconds): call it off the async threads.
#[must_use]
pub fn hash_password(password: &str) -> String {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).expect("operating system randomness");
    let salt = SaltString::encode_b64(&bytes).expect("16 bytes make a valid salt");
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .expect("Argon2 with default parameters hashes any password")
        .to_string()
}

/// Whether `password` matches the stored PHC string. Slow by design, like [`hash_password`].
#[must_use]
pub fn verify_password(password: &str, phc: &str) -> bool {
    PasswordHash::new(phc).is_ok_and(|hash| {
        Argon2::default()
            .verify_password(password.as_bytes(), &hash)
            .is_ok()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_password_verifies_against_its_own_hash_only() {
        let h = hash_password("secret-1");
        assert!(h.starts_with("$argon2id$"), "{h}");
        assert!(verify_password("secret-1", &h));
        assert!(!verify_password("secret-2", &h));
        assert!(!verify_password("secret-1", "not a hash"));
        assert_ne!(h, hash_password("secret-1"), "a fresh salt each time");
    }

    #[test]
    fn names_and_passwords_are_checked() {
        assert!(check_name("gnugo-3.8_level.0").is_ok());
        for bad in ["", "a b", "é", "x/y", &"n".repeat(MAX_ACCOUNT_NAME + 1)] {
            assert_eq!(check_name(bad), Err(LoginError::BadName), "{bad:?}");
        }
        assert!(check_password("abcd").is_ok());
        assert_eq!(check_password("abc"), Err(LoginError::BadPassword));
        assert_eq!(
            check_password(&"p".repeat(MAX_PASSWORD + 1)),
            Err(LoginError::BadPassword)
        );
    }
}
