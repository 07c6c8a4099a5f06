//! Why an HTTP request is refused: one [`ApiError`], each with its status, a stable code for
//! programs and a message for people, answered as `{"error": CODE, "message": TEXT}`
//! ([`crate::wire::ErrorBody`]). Every 429 carries `Retry-After` (seconds), and refusals
//! made below the handlers (axum's body limit) are answered in the same form
//! ([`uniform_refusal`]).

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

use crate::limits::Limited;
use crate::room::MessageRefusal;
use crate::wire::ErrorBody;
pub use crate::wire::LoginError;

/// What a request asked for that does not exist (404 `not_found`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Missing {
    /// No game has this id.
    Game,
    /// No tournament has this id.
    Tournament,
    /// No account has this name.
    Player,
    /// The tournament has no player of this name.
    TournamentPlayer,
    /// The server has no pool of this name.
    Pool,
    /// An archive's day that is not `YYYY-MM-DD` on the calendar.
    ArchiveDay,
}

/// Why a session is not accepted (401 `bad_token`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoSession {
    /// No token given.
    NoToken,
    /// A token longer than any the server gives.
    Unknown,
    /// No session has this token (it ended, or never was).
    Ended,
}

/// A tournament that cannot do what is asked now (409).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TournamentConflict {
    /// It has started: nobody joins any more (`started`).
    Started,
    /// It has all the players it may have (`full`).
    Full,
    /// Fewer than two players (`too_few`).
    TooFew,
    /// The player is withdrawn already (`withdrawn`).
    Withdrawn,
    /// Other servers kept changing it while this change was tried again and again
    /// (`changed`): nothing was changed; ask again.
    Changed,
}

/// Why an HTTP request is refused.
#[derive(Clone, Debug, PartialEq)]
pub enum ApiError {
    /// 400 `malformed`: the body is not the JSON asked for (serde's words).
    Malformed(String),
    /// 400 `invalid`: what is asked cannot be (settings no game can have, ...).
    Invalid(String),
    /// A login refused (the status and code of the [`LoginError`]).
    Login(LoginError),
    /// 401 `bad_token`: no session.
    BadToken(NoSession),
    /// 403 `wrong_secret`: a seat link not valid for this game.
    WrongSecret,
    /// 403 `not_td`: only the tournament director may do this.
    NotTd,
    /// 404 `not_found`.
    NotFound(Missing),
    /// 409: the game refuses the action (the code of the [`MessageRefusal`]).
    Refused(MessageRefusal),
    /// 409: the tournament refuses it now.
    Tournament(TournamentConflict),
    /// 429 `too_many`: too many tournaments under way.
    TooManyTournaments,
    /// 429 `too_many_connections`: the account has this many lobby connections already.
    TooManyLobbyConnections {
        /// The most allowed.
        max: usize,
    },
    /// A limit that keeps the server up (its status, code and `Retry-After`).
    Limited(Limited),
    /// 413 `too_large`: the request's body is larger than the server takes.
    TooLarge {
        /// The most bytes a body may have.
        max: usize,
    },
    /// 500 `storage`: something could not be stored or read; nothing changed.
    Storage(String),
}

impl ApiError {
    /// 500 `storage`, saying what failed (with its causes).
    pub fn storage(e: &(impl std::fmt::Display + ?Sized)) -> ApiError {
        ApiError::Storage(format!("{e:#}"))
    }

    /// The HTTP status.
    #[must_use]
    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::Malformed(_) | ApiError::Invalid(_) => StatusCode::BAD_REQUEST,
            ApiError::Login(e) => match e {
                LoginError::BadName | LoginError::BadPassword => StatusCode::BAD_REQUEST,
                LoginError::UnknownAccount => StatusCode::NOT_FOUND,
                LoginError::WrongPassword | LoginError::Banned => StatusCode::FORBIDDEN,
                LoginError::TooManyAttempts => StatusCode::TOO_MANY_REQUESTS,
                LoginError::Busy { .. } => StatusCode::SERVICE_UNAVAILABLE,
                LoginError::Storage(_) => StatusCode::INTERNAL_SERVER_ERROR,
            },
            ApiError::BadToken(_) => StatusCode::UNAUTHORIZED,
            ApiError::WrongSecret | ApiError::NotTd => StatusCode::FORBIDDEN,
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::Refused(_) | ApiError::Tournament(_) => StatusCode::CONFLICT,
            ApiError::TooManyTournaments | ApiError::TooManyLobbyConnections { .. } => {
                StatusCode::TOO_MANY_REQUESTS
            }
            ApiError::Limited(l) => l.status(),
            ApiError::TooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::Storage(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// Whole seconds to wait before asking again (`Retry-After`): given for every 429 and
    /// the limits' 503.
    #[must_use]
    pub fn retry_after_s(&self) -> Option<u64> {
        match self {
            // Failed guesses are forgotten after the throttle's window, a minute.
            ApiError::Login(LoginError::TooManyAttempts) => Some(60),
            ApiError::Login(LoginError::Busy { retry_after_s }) => Some(*retry_after_s),
            // A tournament or a lobby connection ends first.
            ApiError::TooManyTournaments => Some(60),
            ApiError::TooManyLobbyConnections { .. } => Some(5),
            ApiError::Limited(l) => l.retry_after_s(),
            _ => None,
        }
    }

    /// The stable code for programs (the wire format).
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            ApiError::Malformed(_) => "malformed",
            ApiError::Invalid(_) => "invalid",
            ApiError::Login(e) => e.code(),
            ApiError::BadToken(_) => "bad_token",
            ApiError::WrongSecret => "wrong_secret",
            ApiError::NotTd => "not_td",
            ApiError::NotFound(_) => "not_found",
            ApiError::Refused(r) => r.code(),
            ApiError::Tournament(c) => match c {
                TournamentConflict::Started => "started",
                TournamentConflict::Full => "full",
                TournamentConflict::TooFew => "too_few",
                TournamentConflict::Withdrawn => "withdrawn",
                TournamentConflict::Changed => "changed",
            },
            ApiError::TooManyTournaments => "too_many",
            ApiError::TooManyLobbyConnections { .. } => "too_many_connections",
            ApiError::Limited(l) => l.code(),
            ApiError::TooLarge { .. } => "too_large",
            ApiError::Storage(_) => "storage",
        }
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ApiError::Malformed(m) | ApiError::Invalid(m) | ApiError::Storage(m) => f.write_str(m),
            ApiError::Login(e) => write!(f, "{e}"),
            ApiError::BadToken(why) => f.write_str(match why {
                NoSession::NoToken => "log in first",
                NoSession::Unknown => "no such session",
                NoSession::Ended => "no such session: log in again",
            }),
            ApiError::WrongSecret => f.write_str("this seat link is not valid for this game"),
            ApiError::NotTd => f.write_str("only the tournament director may do this"),
            ApiError::NotFound(what) => f.write_str(match what {
                Missing::Game => "no such game",
                Missing::Tournament => "no such tournament",
                Missing::Player => "no such player",
                Missing::TournamentPlayer => "no such player in this tournament",
                Missing::Pool => "no such pool",
                Missing::ArchiveDay => "no such day (YYYY-MM-DD, or YYYY-MM-DD.tar.gz)",
            }),
            ApiError::Refused(r) => write!(f, "{r}"),
            ApiError::Tournament(c) => f.write_str(match c {
                TournamentConflict::Started => "the tournament has started",
                TournamentConflict::Full => "the tournament is full",
                TournamentConflict::TooFew => "a tournament needs two players",
                TournamentConflict::Withdrawn => "already withdrawn",
                TournamentConflict::Changed => {
                    "the tournament kept changing meanwhile: nothing was changed, ask again"
                }
            }),
            ApiError::TooManyTournaments => f.write_str("too many tournaments under way"),
            ApiError::TooManyLobbyConnections { max } => {
                write!(f, "at most {max} lobby connections an account")
            }
            ApiError::Limited(l) => write!(f, "{l}"),
            ApiError::TooLarge { max } => {
                write!(f, "the request's body is larger than {max} bytes")
            }
        }
    }
}

impl std::error::Error for ApiError {}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        if let ApiError::Limited(l) = self {
            return l.into_response();
        }
        let body = ErrorBody {
            error: self.code().to_string(),
            message: self.to_string(),
        };
        let mut response = (self.status(), axum::Json(body)).into_response();
        if let Some(s) = self.retry_after_s() {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(s.max(1)));
        }
        response
    }
}

/// `Retry-After` of a 429 that did not say (none does today: a net for refusals to come).
pub const DEFAULT_RETRY_AFTER_S: u64 = 5;

/// Brings a response made below the handlers in line with [`ApiError`]'s: a 413 that is not
/// JSON (axum's body limit answers in plain text) becomes [`ApiError::TooLarge`] of `max_body`
/// bytes, and a 429 without `Retry-After` gets [`DEFAULT_RETRY_AFTER_S`].
#[must_use]
pub fn uniform_refusal(mut response: Response, max_body: usize) -> Response {
    let status = response.status();
    if status == StatusCode::PAYLOAD_TOO_LARGE {
        let json = response
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("application/json"));
        if !json {
            return ApiError::TooLarge { max: max_body }.into_response();
        }
    }
    if status == StatusCode::TOO_MANY_REQUESTS
        && !response.headers().contains_key(header::RETRY_AFTER)
    {
        response.headers_mut().insert(
            header::RETRY_AFTER,
            HeaderValue::from(DEFAULT_RETRY_AFTER_S),
        );
    }
    response
}

impl From<Limited> for ApiError {
    fn from(l: Limited) -> ApiError {
        ApiError::Limited(l)
    }
}

impl From<LoginError> for ApiError {
    fn from(e: LoginError) -> ApiError {
        ApiError::Login(e)
    }
}

impl From<MessageRefusal> for ApiError {
    fn from(r: MessageRefusal) -> ApiError {
        ApiError::Refused(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each error answers with its status and `{"error": code, "message": text}`, as the
    /// `error(status, code, message)` of before did; the limits keep their `Retry-After`.
    #[tokio::test]
    async fn errors_answer_with_their_status_code_and_message() {
        let cases = [
            (
                ApiError::NotFound(Missing::Game),
                404,
                "not_found",
                "no such game",
            ),
            (
                ApiError::BadToken(NoSession::NoToken),
                401,
                "bad_token",
                "log in first",
            ),
            (
                ApiError::Login(LoginError::WrongPassword),
                403,
                "wrong_password",
                "wrong password for this account",
            ),
            (
                ApiError::Refused(MessageRefusal::Spectator),
                409,
                "spectator",
                "spectators cannot play: open a seat link to play",
            ),
            (
                ApiError::Tournament(TournamentConflict::TooFew),
                409,
                "too_few",
                "a tournament needs two players",
            ),
            (
                ApiError::TooManyLobbyConnections { max: 8 },
                429,
                "too_many_connections",
                "at most 8 lobby connections an account",
            ),
            (ApiError::storage(&"disk full"), 500, "storage", "disk full"),
        ];
        for (error, status, code, message) in cases {
            let response = error.into_response();
            assert_eq!(response.status().as_u16(), status);
            assert_eq!(
                response.headers()["content-type"],
                "application/json",
                "{code}"
            );
            let body = axum::body::to_bytes(response.into_body(), 4096)
                .await
                .unwrap();
            let body: ErrorBody = serde_json::from_slice(&body).unwrap();
            assert_eq!(
                (body.error.as_str(), body.message.as_str()),
                (code, message)
            );
        }
        let limited = ApiError::from(Limited::Busy).into_response();
        assert_eq!(limited.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(limited.headers()["retry-after"], "5");
    }

    /// Every error answered 429 says when to come back.
    #[test]
    fn every_429_carries_retry_after() {
        let errors = [
            ApiError::Login(LoginError::TooManyAttempts),
            ApiError::TooManyTournaments,
            ApiError::TooManyLobbyConnections { max: 8 },
            ApiError::Limited(Limited::TooManyUnfinished { max: 50 }),
            ApiError::Limited(Limited::CreationRate {
                retry_after: std::time::Duration::from_millis(10),
            }),
            ApiError::Limited(Limited::LoginRate {
                retry_after: std::time::Duration::from_secs(3),
            }),
        ];
        for error in errors {
            let code = error.code();
            let response = error.into_response();
            assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS, "{code}");
            let seconds: u64 = response.headers()[header::RETRY_AFTER]
                .to_str()
                .unwrap()
                .parse()
                .unwrap();
            assert!(seconds >= 1, "{code}: {seconds}");
        }
    }

    /// A plain 413 becomes JSON; a JSON 413 and other statuses are left as they are; a bare
    /// 429 gets the default Retry-After, one with its own keeps it.
    #[tokio::test]
    async fn refusals_below_the_handlers_are_made_uniform() {
        let plain = (StatusCode::PAYLOAD_TOO_LARGE, "length limit exceeded").into_response();
        let response = uniform_refusal(plain, 16_384);
        assert_eq!(response.status(), StatusCode::PAYLOAD_TOO_LARGE);
        assert_eq!(response.headers()["content-type"], "application/json");
        let body = axum::body::to_bytes(response.into_body(), 4096)
            .await
            .unwrap();
        let body: ErrorBody = serde_json::from_slice(&body).unwrap();
        assert_eq!(body.error, "too_large");
        assert!(body.message.contains("16384 bytes"), "{}", body.message);
        let ok = uniform_refusal((StatusCode::OK, "fine").into_response(), 10);
        assert_eq!(ok.status(), StatusCode::OK);
        assert!(ok.headers().get(header::RETRY_AFTER).is_none());
        let bare = uniform_refusal(StatusCode::TOO_MANY_REQUESTS.into_response(), 10);
        assert_eq!(bare.headers()[header::RETRY_AFTER], "5");
        let own = uniform_refusal(
            ApiError::Limited(Limited::LoginRate {
                retry_after: std::time::Duration::from_secs(30),
            })
            .into_response(),
            10,
        );
        assert_eq!(own.headers()[header::RETRY_AFTER], "30");
    }
}
