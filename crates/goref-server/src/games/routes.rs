//! The games' routes: `GET|POST /api/games`, `GET /api/games/{id}`, `/api/games/{id}/sgf`,
//! `/api/games/{id}/analysis` and the game's WebSocket `/api/games/{id}/ws` (its loop is
//! [`super::ws`]'s).

use super::ws::connection;
use super::*;
use crate::metrics::ConnectionKind;
use crate::wire::{Analysis, AnalysisPoint};

/// Frames larger than this close the connection (before any JSON is read).
const MAX_FRAME: usize = 64 * 1024;

impl Games {
    /// The routes of games: the list, creating one, a game's state, record and WebSocket.
    pub fn routes(self: Arc<Games>) -> Router {
        Router::new()
            .route("/api/games", get(list_games).post(create_game))
            .route("/api/games/{id}", get(game_state))
            .route("/api/games/{id}/sgf", get(game_sgf))
            .route("/api/games/{id}/analysis", get(game_analysis))
            .route("/api/games/{id}/ws", get(game_ws))
            .with_state(self)
    }
}

#[derive(Deserialize)]
struct ListQuery {
    limit: Option<usize>,
}

async fn list_games(
    State(state): State<Arc<Games>>,
    Query(q): Query<ListQuery>,
) -> Result<Response, ApiError> {
    let limit = q.limit.unwrap_or(100).clamp(1, 1000);
    let games = state
        .store
        .list(limit)
        .await
        .map_err(|e| ApiError::storage(&e))?;
    Ok(axum::Json(GameList { games }).into_response())
}

async fn create_game(
    State(state): State<Arc<Games>>,
    client: ClientAddr,
    body: Bytes,
) -> Result<Response, ApiError> {
    let creator = client.key();
    if let Err(retry_after) = state.creations.check(&creator, std::time::Instant::now()) {
        return Err(Limited::CreationRate { retry_after }.into());
    }
    let request: CreateRequest =
        serde_json::from_slice(&body).map_err(|e| ApiError::Malformed(e.to_string()))?;
    let config = request
        .config()
        .map_err(|e| ApiError::Invalid(e.to_string()))?;
    let max = state.opts.max_unfinished_per_creator;
    let Opened { id, secrets } = state.create(config, creator, Some(max), None).await?;
    let seat = |secret: &str| SeatLink {
        secret: secret.to_string(),
        link: format!("/g/{id}#seat={secret}"),
    };
    let created = GameCreated {
        black: seat(&secrets.black),
        white: seat(&secrets.white),
        spectator: format!("/g/{id}"),
        id,
    };
    Ok((StatusCode::CREATED, axum::Json(created)).into_response())
}

async fn game_state(State(state): State<Arc<Games>>, Path(id): Path<String>) -> Response {
    match room_or_404(&state, &id).await {
        Ok(h) => {
            let inner = h.inner.lock().await;
            axum::Json(ServerMessage::State(Box::new(
                inner.room.view(&h.id, state.now_ms()),
            )))
            .into_response()
        }
        Err(e) => e.into_response(),
    }
}

async fn game_sgf(State(state): State<Arc<Games>>, Path(id): Path<String>) -> Response {
    match room_or_404(&state, &id).await {
        Ok(h) => {
            let sgf = h.inner.lock().await.room.sgf();
            (
                [
                    (
                        header::CONTENT_TYPE,
                        "application/x-go-sgf; charset=utf-8".to_string(),
                    ),
                    (
                        header::CONTENT_DISPOSITION,
                        format!("attachment; filename=\"goref-{}.sgf\"", h.id),
                    ),
                ],
                sgf,
            )
                .into_response()
        }
        Err(e) => e.into_response(),
    }
}

/// `GET /api/games/{id}/analysis`: the moves' analysis as Black's chances ([`Analysis`]),
/// read from the stored events (their comments).
async fn game_analysis(
    State(state): State<Arc<Games>>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let Some((_, events)) = state
        .store
        .load(&id)
        .await
        .map_err(|e| ApiError::storage(&e))?
    else {
        return Err(ApiError::NotFound(Missing::Game));
    };
    let mut points = Vec::new();
    let mut number = 0;
    for event in &events {
        let (Some(side), Act::Play { .. } | Act::Pass) = (event.by, &event.act) else {
            continue;
        };
        number += 1;
        if let Some(point) = event
            .comment
            .as_deref()
            .and_then(|c| AnalysisPoint::read(number, side, c))
        {
            points.push(point);
        }
    }
    Ok(axum::Json(Analysis { points }).into_response())
}

#[derive(Deserialize)]
struct WsQuery {
    secret: Option<String>,
    /// A session token: the seat of the account, if it plays this game.
    token: Option<String>,
    /// `1`: after a move, send what it changed ([`ServerMessage::Moved`]) instead of the
    /// whole state.
    changes: Option<String>,
}

async fn game_ws(
    State(state): State<Arc<Games>>,
    Path(id): Path<String>,
    Query(q): Query<WsQuery>,
    headers: axum::http::HeaderMap,
    ws: WebSocketUpgrade,
) -> Response {
    if let Err(refused) = crate::guard::check_origin(&headers, &state.opts.allowed_origins) {
        return refused.into_response();
    }
    let handle = match room_or_404(&state, &id).await {
        Ok(h) => h,
        Err(e) => return e.into_response(),
    };
    // Heard from before the session is checked: a ban stored after the check closes it.
    let bans = state.bus.watch_bans();
    let (by_token, banned) = match q.token.as_deref().filter(|t| !t.is_empty()) {
        None => (None, None),
        Some(token) => match crate::sessions::account_of_token(state.store.as_ref(), token).await {
            Ok(account) => {
                let inner = handle.inner.lock().await;
                let players = inner.room.config().players.as_ref();
                let seat = players.and_then(|p| p.color_of(&account.name));
                (seat, Some(bans.of(&account.name)))
            }
            Err(e) => return e.into_response(),
        },
    };
    let seat = match q.secret.as_deref().filter(|s| !s.is_empty()) {
        None => by_token,
        Some(secret) => {
            let hash = hash_secret(secret);
            match Color::ALL
                .into_iter()
                .find(|c| same(&hash, &handle.secret_hashes[*c]))
            {
                Some(c) => Some(c),
                None => return ApiError::WrongSecret.into_response(),
            }
        }
    };
    let changes = matches!(q.changes.as_deref(), Some("1" | "true"));
    // Small read buffers: the default (128 KiB, zeroed as it is used) costs more than the
    // messages, which are a few hundred bytes.
    ws.max_message_size(MAX_FRAME)
        .max_frame_size(MAX_FRAME)
        .read_buffer_size(4096)
        .on_upgrade(move |socket| async move {
            let _connected = state.metrics.connected(ConnectionKind::Game);
            connection(state, handle, seat, changes, banned, socket).await;
        })
}
