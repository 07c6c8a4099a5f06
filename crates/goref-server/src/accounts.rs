//! Players' accounts: a name, a password kept as an Argon2id hash, a flag for programs and the
//! tournament director's role; sessions are random tokens, stored as their SHA-256.
//!
//! As on CGOS, logging in with a name nobody has creates the account with that password.
//!
//! The feature [`Accounts`] owns the login route (`POST /api/login`), the password hasher and
//! the login throttle, and the tournament director's bans (`POST /api/accounts/{name}/ban`
//! and `/unban`); an account's rating and page are the ratings' ([`crate::ratings`]).
//!
//! A ban is stored (every server refuses the account's logins and its sessions end) and told
//! on the bus ([`BusEvent::Banned`]): every server closes the account's connections — lobby
//! and game WebSockets (their loops hear it), CGOS's door (the lobby and the door). Its games
//! go on, and run out on its clock.

use argon2::password_hash::{Output, ParamsString, PasswordHash, SaltString};
use argon2::{Algorithm, Argon2, Block, Params, Version};
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use axum::Router;
use serde::Deserialize;
use std::sync::Arc;

use crate::bus::{Bus, BusEvent};
use crate::error::{ApiError, Missing};
use crate::limits::{ClientAddr, Limited, RateLimiter};
use crate::sessions::{account_of_request, hash_secret, random_hex};
use crate::store::{NewAccount, Store, StoreError};
pub use crate::wire::{
    check_name, check_password, Account, LoginError, MAX_ACCOUNT_NAME, MAX_PASSWORD, MIN_PASSWORD,
};
use crate::wire::{BanAnswer, LoginAnswer};

/// The Argon2id hash of `password` with a fresh salt, as a PHC string. Slow by design (tens
/// of milliseconds): call it off the async threads.
#[must_use]
pub fn hash_password(password: &str) -> String {
    hash_password_in(password, &mut Vec::new())
}

/// Whether `password` matches the stored PHC string. Slow by design, like [`hash_password`].
#[must_use]
pub fn verify_password(password: &str, phc: &str) -> bool {
    verify_password_in(password, phc, &mut Vec::new())
}

/// The largest Argon2 memory a stored hash may ask for, in 1 KiB blocks (64 MiB): a hash is
/// goref's own, but a database is not trusted to make the server allocate without bound.
const MAX_BLOCKS: u32 = 64 * 1024;

/// [`hash_password`] with Argon2's working memory in `memory` (grown as needed, kept for the
/// next call).
fn hash_password_in(password: &str, memory: &mut Vec<Block>) -> String {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).expect("operating system randomness");
    let salt = SaltString::encode_b64(&bytes).expect("16 bytes make a valid salt");
    let params = Params::default();
    let argon = Argon2::new(Algorithm::Argon2id, Version::V0x13, params.clone());
    let mut out = [0u8; Params::DEFAULT_OUTPUT_LEN];
    argon
        .hash_password_into_with_memory(
            password.as_bytes(),
            &bytes,
            &mut out,
            blocks(memory, params.block_count()),
        )
        .expect("Argon2 with default parameters hashes any password");
    PasswordHash {
        algorithm: Algorithm::Argon2id.ident(),
        version: Some(Version::V0x13.into()),
        params: ParamsString::try_from(&params).expect("default parameters"),
        salt: Some(salt.as_salt()),
        hash: Some(Output::new(&out).expect("32 bytes")),
    }
    .to_string()
}

/// [`verify_password`] with Argon2's working memory in `memory`.
fn verify_password_in(password: &str, phc: &str, memory: &mut Vec<Block>) -> bool {
    let Ok(hash) = PasswordHash::new(phc) else {
        return false;
    };
    let (Some(salt), Some(expected)) = (hash.salt, hash.hash) else {
        return false;
    };
    let (Ok(algorithm), Ok(version), Ok(params)) = (
        Algorithm::try_from(hash.algorithm),
        Version::try_from(hash.version.unwrap_or(0x13)),
        Params::try_from(&hash),
    ) else {
        return false;
    };
    if params.m_cost() > MAX_BLOCKS {
        return false;
    }
    let mut salt_bytes = [0u8; 64];
    let Ok(salt) = salt.decode_b64(&mut salt_bytes) else {
        return false;
    };
    let mut out = vec![0u8; expected.len()];
    let argon = Argon2::new(algorithm, version, params.clone());
    let hashed = argon.hash_password_into_with_memory(
        password.as_bytes(),
        salt,
        &mut out,
        blocks(memory, params.block_count()),
    );
    // `Output`'s comparison takes constant time.
    hashed.is_ok() && Output::new(&out).is_ok_and(|o| o == expected)
}

/// The first `n` blocks of `memory`, grown to hold them.
fn blocks(memory: &mut Vec<Block>, n: usize) -> &mut [Block] {
    if memory.len() < n {
        memory.resize(n, Block::default());
    }
    &mut memory[..n]
}

/// Password hashing for a server: at most `permits` hashes at once, each on a blocking thread
/// with a working memory (19 MiB for goref's parameters) kept from one hash to the next. A fresh
/// allocation per login would leave the allocator holding each one (glibc kept 354-470 MB after
/// 40 logins); reused, the server's memory stays at its permits' worth.
///
/// A crowd logging in at once (a thousand programs after a restart) waits at most
/// [`MAX_LOGINS_IN_FLIGHT`] deep: a login past that is refused at once
/// ([`LoginError::Busy`], 503 with `Retry-After`) rather than queued for longer than its
/// client waits, which would hash for nobody and make every later login later still.
#[derive(Debug)]
pub struct Hasher {
    permits: tokio::sync::Semaphore,
    memory: std::sync::Mutex<Vec<Vec<Block>>>,
    /// Logins holding a [`Slot`].
    in_flight: std::sync::atomic::AtomicUsize,
    max_in_flight: usize,
    at_once: usize,
    /// Refusals in the current second: (its start, unix ms; how many).
    refusals: std::sync::Mutex<(u64, u64)>,
}

/// The most logins checked or waiting to be at once (a few seconds of hashing on two cores).
pub const MAX_LOGINS_IN_FLIGHT: usize = 64;

/// A login's place among those in flight: held while it is checked, given back when dropped.
#[derive(Debug)]
pub struct Slot<'a>(&'a Hasher);

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        self.0
            .in_flight
            .fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
    }
}

impl Hasher {
    /// At most `permits` hashes at once, and [`MAX_LOGINS_IN_FLIGHT`] logins in flight.
    #[must_use]
    pub fn new(permits: usize) -> Hasher {
        Hasher::bounded(permits, MAX_LOGINS_IN_FLIGHT)
    }

    /// At most `permits` hashes at once, and `max_in_flight` logins in flight.
    #[must_use]
    pub fn bounded(permits: usize, max_in_flight: usize) -> Hasher {
        Hasher {
            permits: tokio::sync::Semaphore::new(permits.max(1)),
            memory: std::sync::Mutex::new(Vec::new()),
            in_flight: std::sync::atomic::AtomicUsize::new(0),
            max_in_flight: max_in_flight.max(1),
            at_once: permits.max(1),
            refusals: std::sync::Mutex::new((0, 0)),
        }
    }

    /// A place for one more login, or [`LoginError::Busy`] when all are taken.
    ///
    /// # Errors
    ///
    /// [`LoginError::Busy`], with about the time the logins in flight take.
    pub fn reserve(&self, now_ms: u64) -> Result<Slot<'_>, LoginError> {
        let before = self
            .in_flight
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let slot = Slot(self);
        if before >= self.max_in_flight {
            return Err(LoginError::Busy {
                retry_after_s: self.refused(now_ms),
            });
        }
        Ok(slot)
    }

    /// Counts a refusal at `now_ms`; the seconds to ask the refused to wait: the crowd seen
    /// in the last second (those refused in it, each coming back once a wait) spread over
    /// what the hasher does in a second (about 30 ms a hash, `at_once` at a time), so that
    /// the crowd comes back about as fast as it is served.
    fn refused(&self, now_ms: u64) -> u64 {
        let mut window = self
            .refusals
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if now_ms.saturating_sub(window.0) >= 1_000 {
            *window = (now_ms, 0);
        }
        window.1 += 1;
        let per_second = (self.at_once as u64 * 1_000 / 30).max(1);
        (1 + window.1 / per_second).clamp(1, 60)
    }

    /// Runs `work` with a permit and a working memory, on a blocking thread.
    async fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce(&mut Vec<Block>) -> T + Send + 'static,
    ) -> Option<T> {
        let _permit = self.permits.acquire().await.ok()?;
        let mut memory = self
            .memory
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .pop()
            .unwrap_or_default();
        let (result, memory) = tokio::task::spawn_blocking(move || {
            let result = work(&mut memory);
            (result, memory)
        })
        .await
        .ok()?;
        self.memory
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(memory);
        Some(result)
    }

    /// [`hash_password`], a few at a time.
    pub async fn hash(&self, password: &str) -> Option<String> {
        let password = password.to_string();
        self.run(move |memory| hash_password_in(&password, memory))
            .await
    }

    /// [`verify_password`], a few at a time.
    pub async fn verify(&self, password: &str, phc: &str) -> bool {
        let (password, phc) = (password.to_string(), phc.to_string());
        self.run(move |memory| verify_password_in(&password, &phc, memory))
            .await
            .unwrap_or(false)
    }
}

/// The accounts feature: logins (creating accounts CGOS's way), the hasher, the throttle.
pub struct Accounts {
    store: Arc<dyn Store>,
    /// Where bans are told to every server.
    bus: Arc<Bus>,
    clock: crate::clock::Clock,
    /// The tournament director's account; `None`: the first account created.
    td: Option<String>,
    /// Password hashing is slow and memory-hard: a few at a time, each in a reused memory.
    hasher: Hasher,
    /// Failed logins, per name and address and per address.
    throttle: crate::throttle::Throttle,
    /// Logins (each an Argon2 hash, and maybe a new account), by client address.
    logins: RateLimiter,
}

impl Accounts {
    /// The feature over `store`, telling bans on `bus`, with the server's settings (the TD,
    /// the login limits: the creation limits, as a club's page logs in now and then and a
    /// flood is refused).
    #[must_use]
    pub fn new(
        store: Arc<dyn Store>,
        bus: Arc<Bus>,
        opts: &crate::options::Options,
    ) -> Arc<Accounts> {
        Arc::new(Accounts {
            store,
            bus,
            clock: opts.clock.clone(),
            td: opts.td.clone(),
            hasher: Hasher::new(2),
            throttle: crate::throttle::Throttle::new(crate::throttle::ThrottleLimits::default()),
            logins: RateLimiter::new(
                opts.create_burst,
                opts.create_per_minute,
                crate::limits::MAX_LIMITER_KEYS,
            ),
        })
    }

    /// `POST /api/login`, `POST /api/accounts/{name}/ban` and `/unban`.
    pub fn routes(self: Arc<Accounts>) -> Router {
        Router::new()
            .route("/api/login", axum::routing::post(login))
            .route("/api/accounts/{name}/ban", axum::routing::post(ban))
            .route("/api/accounts/{name}/unban", axum::routing::post(unban))
            .with_state(self)
    }

    /// The tournament director `by` bans account `name` (`banned`) or lifts its ban: stored
    /// (its sessions end), then a ban is told to every server, which closes the account's
    /// connections. The account as stored.
    ///
    /// # Errors
    ///
    /// 403 `not_td` when `by` is not the tournament director, 404 for no such account, 400
    /// `invalid` for banning a tournament director, 500 when the store fails.
    pub async fn set_banned(
        &self,
        by: &Account,
        name: &str,
        banned: bool,
    ) -> Result<BanAnswer, ApiError> {
        if !by.td {
            return Err(ApiError::NotTd);
        }
        if check_name(name).is_err() {
            return Err(ApiError::NotFound(Missing::Player));
        }
        let storage = |e: StoreError| ApiError::storage(&e);
        if banned {
            let target = self.store.account(name).await.map_err(storage)?;
            if target.is_some_and(|(a, _)| a.td) {
                return Err(ApiError::Invalid(
                    "the tournament director cannot be banned".into(),
                ));
            }
        }
        let Some(stored) = self.store.set_banned(name, banned).await.map_err(storage)? else {
            return Err(ApiError::NotFound(Missing::Player));
        };
        if banned {
            self.bus
                .publish(BusEvent::Banned {
                    name: stored.clone(),
                })
                .await;
        }
        Ok(BanAnswer {
            name: stored,
            banned,
        })
    }

    /// Logs `request` in from the client address `address` (its limits key): a session
    /// token and the account. A guess is counted before its password is hashed, per name and
    /// address and per address (crate::throttle): an attacker is throttled, never the owner
    /// logging in from elsewhere.
    ///
    /// # Errors
    ///
    /// Why the login is refused.
    pub async fn log_in(
        &self,
        request: LoginRequest,
        address: &str,
    ) -> Result<(String, Account), LoginError> {
        check_name(&request.name)?;
        check_password(&request.password)?;
        let _slot = self.hasher.reserve(self.clock.now_ms())?;
        let storage = |e: StoreError| LoginError::Storage(format!("{e:#}"));
        let now = self.clock.now_ms();
        let guess = self
            .throttle
            .begin(&request.name, address, now)
            .map_err(|_| LoginError::TooManyAttempts)?;
        let account = match self.store.account(&request.name).await.map_err(storage)? {
            Some((account, phc)) => {
                if !self.hasher.verify(&request.password, &phc).await {
                    self.throttle.failed(guess);
                    return Err(LoginError::WrongPassword);
                }
                self.throttle.succeeded(guess);
                // Banned: refused once the password is right (nobody else learns of it).
                if self.store.is_banned(&account.name).await.map_err(storage)? {
                    return Err(LoginError::Banned);
                }
                account
            }
            None if request.create => {
                self.throttle.succeeded(guess);
                let phc = self.hasher.hash(&request.password).await.ok_or_else(|| {
                    LoginError::Storage("the password could not be hashed".into())
                })?;
                let new = NewAccount {
                    name: request.name.clone(),
                    phc,
                    program: request.program,
                    created_ms: now,
                };
                self.store
                    .create_account(new, self.td.clone())
                    .await
                    .map_err(storage)?
                    // Taken since we looked: the other login won.
                    .ok_or(LoginError::WrongPassword)?
            }
            None => {
                // Asking after names that do not exist is guessing too.
                self.throttle.failed(guess);
                return Err(LoginError::UnknownAccount);
            }
        };
        let token = random_hex(32);
        self.store
            .create_session(hash_secret(&token), account.name.clone(), now)
            .await
            .map_err(storage)?;
        Ok((token, account))
    }
}

/// A login: `{name, password, program, create}`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoginRequest {
    /// The account's name.
    pub name: String,
    /// Its password.
    pub password: String,
    /// Creating an account: a program.
    #[serde(default)]
    pub program: bool,
    /// Create the account when nobody has the name (CGOS's way; `goref connect` asks for it).
    #[serde(default)]
    pub create: bool,
}

/// `POST /api/login {name, password, program, create}`: a session token. Logins are limited
/// per client address as game creation is (429 `rate_limited`).
async fn login(
    State(accounts): State<Arc<Accounts>>,
    client: ClientAddr,
    body: Bytes,
) -> Result<Response, ApiError> {
    if let Err(retry_after) = accounts
        .logins
        .check(&client.key(), std::time::Instant::now())
    {
        return Err(Limited::LoginRate { retry_after }.into());
    }
    let request: LoginRequest =
        serde_json::from_slice(&body).map_err(|e| ApiError::Malformed(e.to_string()))?;
    let (token, account) = accounts.log_in(request, &client.key()).await?;
    Ok(axum::Json(LoginAnswer { token, account }).into_response())
}

/// `POST /api/accounts/{name}/ban` (the TD only): see [`Accounts::set_banned`].
async fn ban(
    State(accounts): State<Arc<Accounts>>,
    Path(name): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let by = account_of_request(accounts.store.as_ref(), &headers).await?;
    let answer = accounts.set_banned(&by, &name, true).await?;
    Ok(axum::Json(answer).into_response())
}

/// `POST /api/accounts/{name}/unban` (the TD only).
async fn unban(
    State(accounts): State<Arc<Accounts>>,
    Path(name): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let by = account_of_request(accounts.store.as_ref(), &headers).await?;
    let answer = accounts.set_banned(&by, &name, false).await?;
    Ok(axum::Json(answer).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hashes made with reused memory are Argon2id's own: argon2's `PasswordHasher` and
    /// `PasswordVerifier` accept them, and they accept its.
    #[test]
    fn hashes_with_reused_memory_are_standard_argon2id() {
        use argon2::password_hash::{PasswordHasher, PasswordVerifier};
        let mut memory = Vec::new();
        let ours = hash_password_in("secret-1", &mut memory);
        let parsed = PasswordHash::new(&ours).unwrap();
        assert!(Argon2::default()
            .verify_password(b"secret-1", &parsed)
            .is_ok());
        assert!(Argon2::default()
            .verify_password(b"secret-2", &parsed)
            .is_err());
        let salt = SaltString::encode_b64(b"0123456789abcdef").unwrap();
        let theirs = Argon2::default()
            .hash_password(b"secret-3", &salt)
            .unwrap()
            .to_string();
        assert!(verify_password_in("secret-3", &theirs, &mut memory));
        assert!(!verify_password_in("secret-4", &theirs, &mut memory));
        // The memory was allocated once, at the parameters' size.
        assert_eq!(memory.len(), Params::default().block_count());
        // A stored hash asking for more memory than the bound is refused unread.
        let greedy = theirs.replace("m=19456", "m=1048576");
        assert!(!verify_password_in("secret-3", &greedy, &mut memory));
    }

    #[tokio::test]
    async fn the_hasher_verifies_what_it_hashed() {
        let hasher = Hasher::new(2);
        let phc = hasher.hash("secret-5").await.unwrap();
        let (a, b) = tokio::join!(hasher.verify("secret-5", &phc), hasher.verify("nope", &phc));
        assert!(a && !b);
        assert!(hasher.memory.lock().unwrap().len() <= 2);
    }

    #[test]
    fn logins_past_the_bound_are_refused_at_once_and_their_places_come_back() {
        let hasher = Hasher::bounded(2, 3);
        let mut held: Vec<_> = (0..3).map(|_| hasher.reserve(0).unwrap()).collect();
        let Err(LoginError::Busy { retry_after_s }) = hasher.reserve(0) else {
            panic!("a fourth login in flight is refused");
        };
        assert_eq!(retry_after_s, 1, "a few refused: come back in a second");
        // A crowd refused within a second is asked to wait longer, as long as the hasher
        // takes to serve it (2 at a time, ~30 ms each: 66 a second).
        let waits: Vec<u64> = (0..400)
            .map(|_| match hasher.reserve(500) {
                Err(LoginError::Busy { retry_after_s }) => retry_after_s,
                _ => panic!("refused"),
            })
            .collect();
        assert_eq!((waits[0], waits[399]), (1, 7));
        // A second later, the count starts again.
        assert!(matches!(
            hasher.reserve(1_000),
            Err(LoginError::Busy { retry_after_s: 1 })
        ));
        // The refused held no place: one login ending lets exactly one more in.
        drop(held.pop());
        let again = hasher.reserve(1_000).expect("a place came back");
        assert!(hasher.reserve(1_000).is_err());
        drop(again);
        drop(held);
        assert_eq!(
            hasher.in_flight.load(std::sync::atomic::Ordering::SeqCst),
            0
        );
    }

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
