//! The operator's routes: `GET /metrics`, the server's counters ([`crate::metrics`]) in
//! Prometheus's text format (0.0.4), and `GET /healthz`, whether the store answers.
//!
//! Neither needs a session (a reverse proxy may keep them to the operator's network); both
//! cost one small query of the store, as `GET /api/games` does.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

use crate::games::Games;
use crate::metrics::CONTENT_TYPE;
use crate::store::StoreFuture;
use crate::wire::Health;

/// The longest `GET /healthz` waits for the store before it answers 503.
pub const HEALTH_TIMEOUT: Duration = Duration::from_secs(2);

/// `GET /metrics` and `GET /healthz`.
pub fn routes(games: Arc<Games>) -> Router {
    Router::new()
        .route("/metrics", get(metrics))
        .route("/healthz", get(healthz))
        .with_state(games)
}

/// The counters, with the live games as the store counts them now (left out when the store
/// fails: that failure is counted) and whether this server leads.
async fn metrics(State(games): State<Arc<Games>>) -> Response {
    let live = games.store().live_games_by_size().await.unwrap_or_default();
    let text = games.metrics().render(&live, games.leads());
    (
        [
            (header::CONTENT_TYPE, CONTENT_TYPE),
            (header::CACHE_CONTROL, "no-store"),
        ],
        text,
    )
        .into_response()
}

/// 200 `{"ok":true,"leads":…}` when the store answers a trivial query within
/// [`HEALTH_TIMEOUT`], else 503 `{"ok":false,"error":"store","message":…}`.
async fn healthz(State(games): State<Arc<Games>>) -> Response {
    let (status, health) = health(games.store().ping(), games.leads()).await;
    (
        status,
        [(header::CACHE_CONTROL, "no-store")],
        axum::Json(health),
    )
        .into_response()
}

/// The answer of `GET /healthz` once the store's `ping` answered (or did not, within
/// [`HEALTH_TIMEOUT`]).
async fn health(ping: StoreFuture<'_, ()>, leads: bool) -> (StatusCode, Health) {
    let failed = match tokio::time::timeout(HEALTH_TIMEOUT, ping).await {
        Ok(Ok(())) => None,
        Ok(Err(e)) => Some(format!("the store does not answer: {e:#}")),
        Err(_) => Some(format!(
            "the store does not answer within {} s",
            HEALTH_TIMEOUT.as_secs()
        )),
    };
    let status = if failed.is_some() {
        StatusCode::SERVICE_UNAVAILABLE
    } else {
        StatusCode::OK
    };
    let health = Health {
        ok: failed.is_none(),
        leads,
        error: failed.as_ref().map(|_| "store".to_string()),
        message: failed,
    };
    (status, health)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::StoreError;

    #[tokio::test(start_paused = true)]
    async fn healthy_when_the_store_answers_else_503_with_why() {
        let (status, ok) = health(Box::pin(async { Ok(()) }), true).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(
            serde_json::to_value(&ok).unwrap(),
            serde_json::json!({"ok": true, "leads": true})
        );
        let down =
            Box::pin(async { Err(StoreError::Database(anyhow::anyhow!("connection refused"))) });
        let (status, failed) = health(down, false).await;
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
        assert!(!failed.ok);
        assert_eq!(failed.error.as_deref(), Some("store"));
        assert!(failed.message.unwrap().contains("connection refused"));
        // A store that never answers: 503 after the timeout (tokio's paused clock).
        let started = tokio::time::Instant::now();
        let (status, silent) = health(Box::pin(std::future::pending()), false).await;
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
        assert!(silent.message.unwrap().contains("within 2 s"));
        assert_eq!(started.elapsed(), HEALTH_TIMEOUT);
    }
}
