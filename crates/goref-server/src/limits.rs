//! Limits that keep the server up: a keyed token bucket (game creation per client address,
//! and later per account), the refusals the limits answer with, and the client's address.
//!
//! Time is passed in (`now`), so that the limiter is tested without sleeping.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Client addresses (or accounts) the creation limiter keeps at most.
pub(crate) const MAX_LIMITER_KEYS: usize = 100_000;

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

/// One connection's token bucket: `rate` messages a second on average, bursts of twice that
/// (the game's and the lobby's WebSockets). Time is the injected clock's, in ms.
#[derive(Debug)]
pub struct MessageBucket {
    rate: f64,
    tokens: f64,
    at_ms: u64,
}

impl MessageBucket {
    /// A full bucket at `now_ms`.
    #[must_use]
    pub fn new(rate: u32, now_ms: u64) -> MessageBucket {
        let rate = f64::from(rate.max(1));
        MessageBucket {
            rate,
            tokens: 2.0 * rate,
            at_ms: now_ms,
        }
    }

    /// Takes a token at `now_ms`: whether there was one.
    pub fn take(&mut self, now_ms: u64) -> bool {
        let refill = now_ms.saturating_sub(self.at_ms) as f64 / 1000.0 * self.rate;
        self.tokens = (self.tokens + refill).min(2.0 * self.rate);
        self.at_ms = self.at_ms.max(now_ms);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// Token buckets by key (`addr:…` for a client address, `account:NAME` for an account):
/// each key may take `burst` at once, then `per_minute` a minute. Keys whose bucket is full
/// again are forgotten when more than `max_keys` are held; when every held key is still in
/// use, a new key is refused until one is (so a stranger cannot make it hold more).
#[derive(Debug)]
pub struct RateLimiter {
    burst: f64,
    per_second: f64,
    max_keys: usize,
    buckets: Mutex<HashMap<String, Bucket>>,
}

#[derive(Clone, Copy, Debug)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

impl RateLimiter {
    /// A limiter of `burst` (at least 1) and `per_minute`; `per_minute == 0` lets everything
    /// through.
    #[must_use]
    pub fn new(burst: u32, per_minute: u32, max_keys: usize) -> RateLimiter {
        RateLimiter {
            burst: f64::from(burst.max(1)),
            per_second: f64::from(per_minute) / 60.0,
            max_keys: max_keys.max(1),
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Takes one token of `key` at `now`; when there is none, how long until there is one.
    pub fn check(&self, key: &str, now: Instant) -> Result<(), Duration> {
        if self.per_second <= 0.0 {
            return Ok(());
        }
        let mut buckets = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        if !buckets.contains_key(key) && buckets.len() >= self.max_keys {
            let (burst, rate) = (self.burst, self.per_second);
            buckets.retain(|_, b| Self::level(b, now, rate, burst) < burst);
            if buckets.len() >= self.max_keys {
                return Err(Duration::from_secs_f64(1.0 / rate));
            }
        }
        let bucket = buckets.entry(key.to_string()).or_insert(Bucket {
            tokens: self.burst,
            at: now,
        });
        bucket.tokens = Self::level(bucket, now, self.per_second, self.burst);
        bucket.at = bucket.at.max(now);
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            Ok(())
        } else {
            Err(Duration::from_secs_f64(
                (1.0 - bucket.tokens) / self.per_second,
            ))
        }
    }

    /// Keys held now.
    #[must_use]
    pub fn keys(&self) -> usize {
        self.buckets.lock().map_or(0, |b| b.len())
    }

    fn level(b: &Bucket, now: Instant, rate: f64, burst: f64) -> f64 {
        let elapsed = now.saturating_duration_since(b.at).as_secs_f64();
        (b.tokens + elapsed * rate).min(burst)
    }
}

/// The key of a client address for the limits: the IPv4 address, or the /64 network of an
/// IPv6 one (one client usually has a whole /64).
#[must_use]
pub fn address_key(ip: IpAddr) -> String {
    match ip {
        IpAddr::V4(v4) => format!("addr:{v4}"),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => format!("addr:{v4}"),
            None => {
                let s = v6.segments();
                format!("addr:{:x}:{:x}:{:x}:{:x}::/64", s[0], s[1], s[2], s[3])
            }
        },
    }
}

/// The client's address as a reverse proxy on this machine reports it: the last entry of the
/// last `X-Forwarded-For` header (the one the proxy added), when it is an IP address.
#[must_use]
pub fn forwarded_client(headers: &axum::http::HeaderMap) -> Option<IpAddr> {
    let last = headers.get_all("x-forwarded-for").iter().next_back()?;
    last.to_str().ok()?.rsplit(',').next()?.trim().parse().ok()
}

/// The address of the client of a request (set by the server's accept loop).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClientAddr(pub SocketAddr);

impl ClientAddr {
    /// Its key for the limits ([`address_key`]).
    #[must_use]
    pub fn key(&self) -> String {
        address_key(self.0.ip())
    }
}

impl<S: Send + Sync> axum::extract::FromRequestParts<S> for ClientAddr {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        _: &S,
    ) -> Result<ClientAddr, Self::Rejection> {
        Ok(parts
            .extensions
            .get::<ClientAddr>()
            .copied()
            .unwrap_or(ClientAddr(SocketAddr::from(([0, 0, 0, 0], 0)))))
    }
}

/// Why a request was refused by a limit. Answered as HTTP with `{"error": code, "message"}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Limited {
    /// Too many games created by this client lately (429, with `Retry-After`).
    CreationRate {
        /// When the next one will be allowed.
        retry_after: Duration,
    },
    /// Too many logins from this client lately (429, with `Retry-After`).
    LoginRate {
        /// When the next one will be allowed.
        retry_after: Duration,
    },
    /// The creator already has this many unfinished games (429, with `Retry-After`: a minute,
    /// for one of them to end or expire).
    TooManyUnfinished {
        /// The cap.
        max: usize,
    },
    /// A state-changing request whose body is not declared JSON (415): what a cross-site form
    /// post sends.
    NotJson,
    /// A WebSocket opened by a page of another site (403).
    ForeignOrigin {
        /// The `Origin` it gave.
        origin: String,
    },
    /// Too many open connections (503, with `Retry-After`).
    Busy,
    /// The request took longer than allowed (408).
    RequestTimeout,
}

impl Limited {
    /// A stable code for programs (the wire format).
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            Limited::CreationRate { .. } | Limited::LoginRate { .. } => "rate_limited",
            Limited::TooManyUnfinished { .. } => "too_many_unfinished",
            Limited::NotJson => "not_json",
            Limited::ForeignOrigin { .. } => "foreign_origin",
            Limited::Busy => "busy",
            Limited::RequestTimeout => "request_timeout",
        }
    }

    /// The HTTP status.
    #[must_use]
    pub fn status(&self) -> StatusCode {
        match self {
            Limited::CreationRate { .. }
            | Limited::LoginRate { .. }
            | Limited::TooManyUnfinished { .. } => StatusCode::TOO_MANY_REQUESTS,
            Limited::NotJson => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            Limited::ForeignOrigin { .. } => StatusCode::FORBIDDEN,
            Limited::Busy => StatusCode::SERVICE_UNAVAILABLE,
            Limited::RequestTimeout => StatusCode::REQUEST_TIMEOUT,
        }
    }

    /// Whole seconds to wait before trying again, when that is known.
    #[must_use]
    pub fn retry_after_s(&self) -> Option<u64> {
        match self {
            Limited::CreationRate { retry_after } | Limited::LoginRate { retry_after } => {
                Some(retry_after.as_secs() + u64::from(retry_after.subsec_nanos() > 0))
            }
            Limited::TooManyUnfinished { .. } => Some(60),
            Limited::Busy => Some(5),
            _ => None,
        }
    }

    /// The answer's body.
    #[must_use]
    pub fn body(&self) -> String {
        let body = crate::wire::ErrorBody {
            error: self.code().to_string(),
            message: self.to_string(),
        };
        serde_json::to_string(&body).expect("serialisable")
    }
}

impl std::fmt::Display for Limited {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Limited::CreationRate { .. } => write!(
                f,
                "too many games created from this address: try again in {} s",
                self.retry_after_s().unwrap_or(1)
            ),
            Limited::LoginRate { .. } => write!(
                f,
                "too many logins from this address: try again in {} s",
                self.retry_after_s().unwrap_or(1)
            ),
            Limited::TooManyUnfinished { max } => write!(
                f,
                "you have {max} unfinished games, the most allowed: finish some first \
                 (games nobody starts are closed after a while)"
            ),
            Limited::NotJson => {
                f.write_str("this request changes something: its body must be application/json")
            }
            Limited::ForeignOrigin { origin } => write!(
                f,
                "a page of {} may not open this server's games",
                origin.chars().take(100).collect::<String>()
            ),
            Limited::Busy => f.write_str("the server has too many connections: try again soon"),
            Limited::RequestTimeout => f.write_str("the request took too long"),
        }
    }
}

impl IntoResponse for Limited {
    fn into_response(self) -> Response {
        let mut response = (
            self.status(),
            [(header::CONTENT_TYPE, "application/json")],
            self.body(),
        )
            .into_response();
        if let Some(s) = self.retry_after_s() {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(s.max(1)));
        }
        response
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_connections_bucket_takes_bursts_of_twice_its_rate_then_its_rate() {
        let mut bucket = MessageBucket::new(10, 1_000);
        for _ in 0..20 {
            assert!(bucket.take(1_000));
        }
        assert!(!bucket.take(1_000), "the burst is spent");
        assert!(!bucket.take(1_050), "half a token 50 ms later");
        assert!(bucket.take(1_100), "one token 100 ms later");
        assert!(!bucket.take(1_100));
        // A clock that goes back gives nothing (and takes nothing).
        assert!(!bucket.take(500));
        assert!(bucket.take(60_000), "full again, no more than full");
        for _ in 0..19 {
            assert!(bucket.take(60_000));
        }
        assert!(!bucket.take(60_000));
    }

    #[test]
    fn a_burst_then_the_rate() {
        let limiter = RateLimiter::new(20, 60, 100);
        let t0 = Instant::now();
        for _ in 0..20 {
            limiter.check("addr:1.2.3.4", t0).unwrap();
        }
        let wait = limiter.check("addr:1.2.3.4", t0).unwrap_err();
        assert!(
            (Duration::from_millis(990)..=Duration::from_millis(1010)).contains(&wait),
            "{wait:?}"
        );
        // Another key has its own bucket.
        limiter.check("account:ann", t0).unwrap();
        // One a second (60 a minute) comes back.
        let t1 = t0 + Duration::from_secs(1);
        limiter.check("addr:1.2.3.4", t1).unwrap();
        assert!(limiter.check("addr:1.2.3.4", t1).is_err());
        // A long pause refills up to the burst, no more.
        let t2 = t1 + Duration::from_secs(3600);
        for _ in 0..20 {
            limiter.check("addr:1.2.3.4", t2).unwrap();
        }
        assert!(limiter.check("addr:1.2.3.4", t2).is_err());
    }

    #[test]
    fn a_flood_of_hundreds_gets_few_through() {
        let limiter = RateLimiter::new(20, 60, 100);
        let t0 = Instant::now();
        // 500 requests over 10 s: the burst and ten more.
        let passed = (0..500)
            .filter(|i| {
                limiter
                    .check("addr:9.9.9.9", t0 + Duration::from_millis(i * 20))
                    .is_ok()
            })
            .count();
        assert_eq!(passed, 20 + 9, "{passed}");
    }

    #[test]
    fn time_going_backwards_refills_nothing() {
        let limiter = RateLimiter::new(1, 60, 10);
        let t0 = Instant::now() + Duration::from_secs(10);
        limiter.check("k", t0).unwrap();
        assert!(limiter.check("k", t0 - Duration::from_secs(5)).is_err());
        assert!(limiter.check("k", t0).is_err());
    }

    #[test]
    fn keys_are_bounded_and_full_buckets_are_forgotten() {
        let limiter = RateLimiter::new(2, 60, 3);
        let t0 = Instant::now();
        for k in ["a", "b", "c"] {
            limiter.check(k, t0).unwrap();
        }
        // Every bucket is in use: a fourth key waits.
        assert!(limiter.check("d", t0).is_err());
        assert_eq!(limiter.keys(), 3);
        // A second later they are full again, forgotten, and the new key is let in.
        let t1 = t0 + Duration::from_secs(1);
        limiter.check("d", t1).unwrap();
        assert_eq!(limiter.keys(), 1);
    }

    #[test]
    fn zero_per_minute_is_no_limit() {
        let limiter = RateLimiter::new(1, 0, 1);
        let t0 = Instant::now();
        for i in 0..100 {
            limiter.check(&format!("k{i}"), t0).unwrap();
        }
        assert_eq!(limiter.keys(), 0);
    }

    #[test]
    fn forwarded_clients() {
        let mut h = axum::http::HeaderMap::new();
        assert_eq!(forwarded_client(&h), None);
        h.append("x-forwarded-for", "1.1.1.1, 2.2.2.2".parse().unwrap());
        h.append("x-forwarded-for", "6.6.6.6, 10.0.0.7".parse().unwrap());
        assert_eq!(forwarded_client(&h), Some("10.0.0.7".parse().unwrap()));
        let mut h = axum::http::HeaderMap::new();
        h.append("x-forwarded-for", "not an address".parse().unwrap());
        assert_eq!(forwarded_client(&h), None);
    }

    #[test]
    fn address_keys() {
        assert_eq!(address_key("10.1.2.3".parse().unwrap()), "addr:10.1.2.3");
        assert_eq!(
            address_key("::ffff:10.1.2.3".parse().unwrap()),
            "addr:10.1.2.3"
        );
        assert_eq!(
            address_key("2001:db8:1:2:3:4:5:6".parse().unwrap()),
            "addr:2001:db8:1:2::/64"
        );
    }

    #[test]
    fn refusals_answer_with_their_status_code_and_retry_after() {
        let r = Limited::CreationRate {
            retry_after: Duration::from_millis(1500),
        };
        assert_eq!(r.retry_after_s(), Some(2));
        let response = r.clone().into_response();
        assert_eq!(response.status(), 429);
        assert_eq!(response.headers()[header::RETRY_AFTER], "2");
        assert!(r.body().contains("\"error\":\"rate_limited\""));
        assert_eq!(Limited::NotJson.status(), 415);
        assert_eq!(
            Limited::ForeignOrigin {
                origin: "https://evil.example".into()
            }
            .status(),
            403
        );
    }
}
