//! Each pool's archive by day, as CGOS keeps its SGF records by date:
//! `GET /api/pools/{pool}/archive/{YYYY-MM-DD}` lists the games of the pool created that day
//! (UTC), with their results ([`ArchiveDay`]); `GET /api/pools/{pool}/archive/{YYYY-MM-DD}.tar.gz`
//! is their records, the finished ones, as SGF files `YYYY-MM-DD/ID.sgf` in a gzipped tar.
//!
//! What a stranger can make it cost is bounded: at most [`MAX_DAY_GAMES`] games a day, one
//! archive built at a time, and the archives of days that are over kept ([`KEPT`] of them),
//! so that asking again costs nothing.

use std::collections::VecDeque;
use std::io::Write as _;
use std::sync::{Arc, Mutex};

use axum::extract::{Path, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use goref_cgos::protocol::Date;

use crate::error::{ApiError, Missing};
use crate::games::Games;
use crate::wire::ArchiveDay;

/// The most games of one day an archive lists (and packs); more are left out, and the list
/// says so (`truncated`).
pub const MAX_DAY_GAMES: usize = 5_000;

/// The packed archives of past days kept in memory.
pub const KEPT: usize = 8;

const DAY_MS: u64 = 86_400_000;

/// A packed archive: (pool, day, the `.tar.gz`).
type Packed = (String, Date, Arc<Vec<u8>>);

/// The archive feature.
pub struct Archive {
    games: Arc<Games>,
    pools: Vec<String>,
    /// Packed archives of days that are over, newest last.
    kept: Mutex<VecDeque<Packed>>,
    /// One archive packed at a time.
    packing: tokio::sync::Semaphore,
}

impl Archive {
    /// The feature over the games service (its store, its pools).
    #[must_use]
    pub fn new(games: Arc<Games>) -> Arc<Archive> {
        let pools = games.options().pool_names();
        Arc::new(Archive {
            games,
            pools,
            kept: Mutex::new(VecDeque::new()),
            packing: tokio::sync::Semaphore::new(1),
        })
    }

    /// `GET /api/pools/{pool}/archive/{day}` and `.../{day}.tar.gz`.
    pub fn routes(self: Arc<Archive>) -> Router {
        Router::new()
            .route("/api/pools/{pool}/archive/{day}", get(day_route))
            .with_state(self)
    }

    /// The games of `pool` created on `day`, oldest first (at most [`MAX_DAY_GAMES`]).
    ///
    /// # Errors
    ///
    /// 404 for a pool the server has not; 500 for the store.
    pub async fn day(&self, pool: &str, day: Date) -> Result<ArchiveDay, ApiError> {
        if !self.pools.iter().any(|p| p == pool) {
            return Err(ApiError::NotFound(Missing::Pool));
        }
        let from = day.unix_seconds() * 1000;
        let mut games = self
            .games
            .store()
            .pool_games(pool, from, from + DAY_MS, MAX_DAY_GAMES + 1)
            .await
            .map_err(|e| ApiError::storage(&e))?;
        let truncated = games.len() > MAX_DAY_GAMES;
        games.truncate(MAX_DAY_GAMES);
        Ok(ArchiveDay {
            pool: pool.to_string(),
            day: day.to_string(),
            games,
            truncated,
        })
    }

    /// The records of the finished games of `pool` created on `day`, as a gzipped tar of
    /// `YYYY-MM-DD/ID.sgf` files.
    ///
    /// # Errors
    ///
    /// As [`Archive::day`]; 500 when a record cannot be read.
    pub async fn packed(&self, pool: &str, day: Date) -> Result<Arc<Vec<u8>>, ApiError> {
        if let Some(kept) = self.kept_archive(pool, day) {
            return Ok(kept);
        }
        let _one = self
            .packing
            .acquire()
            .await
            .map_err(|_| ApiError::storage("the server is stopping"))?;
        if let Some(kept) = self.kept_archive(pool, day) {
            return Ok(kept);
        }
        let over = (day.unix_seconds() * 1000 + DAY_MS) <= self.games.now_ms();
        let listed = self.day(pool, day).await?;
        let mut records = Vec::with_capacity(listed.games.len());
        for game in listed.games.iter().filter(|g| g.result.is_some()) {
            let sgf = self
                .games
                .stored_sgf(&game.id)
                .await
                .map_err(|e| ApiError::storage(&e))?;
            if let Some(sgf) = sgf {
                records.push((format!("{day}/{}.sgf", game.id), sgf));
            }
        }
        let packed = tokio::task::spawn_blocking(move || pack(&records))
            .await
            .map_err(|e| ApiError::storage(&e))?
            .map_err(|e| ApiError::storage(&e))?;
        let packed = Arc::new(packed);
        // A day that is over does not change: kept. (Games still on are in a later one only
        // if they end; today's is packed again when asked.)
        if over && listed.games.iter().all(|g| g.result.is_some()) {
            let mut kept = self.kept.lock().expect("kept");
            if kept.len() >= KEPT {
                kept.pop_front();
            }
            kept.push_back((pool.to_string(), day, packed.clone()));
        }
        Ok(packed)
    }

    fn kept_archive(&self, pool: &str, day: Date) -> Option<Arc<Vec<u8>>> {
        let kept = self.kept.lock().expect("kept");
        kept.iter()
            .find(|(p, d, _)| p == pool && *d == day)
            .map(|(_, _, a)| a.clone())
    }
}

/// `records` (path, text) as a gzipped tar.
fn pack(records: &[(String, String)]) -> std::io::Result<Vec<u8>> {
    let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    let mut tar = tar::Builder::new(gz);
    for (path, text) in records {
        let mut header = tar::Header::new_gnu();
        header.set_size(text.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        tar.append_data(&mut header, path, text.as_bytes())?;
    }
    let mut gz = tar.into_inner()?;
    gz.flush()?;
    gz.finish()
}

async fn day_route(
    State(archive): State<Arc<Archive>>,
    Path((pool, day)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    let (text, packed) = match day.strip_suffix(".tar.gz") {
        Some(d) => (d, true),
        None => (day.as_str(), false),
    };
    let Ok(date) = Date::parse_calendar(text) else {
        return Err(ApiError::NotFound(Missing::ArchiveDay));
    };
    if !packed {
        return Ok(axum::Json(archive.day(&pool, date).await?).into_response());
    }
    let bytes = archive.packed(&pool, date).await?;
    Ok((
        [
            (header::CONTENT_TYPE, "application/gzip".to_string()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"goref-{pool}-{date}.tar.gz\""),
            ),
        ],
        bytes.as_ref().clone(),
    )
        .into_response())
}

#[cfg(test)]
mod tests {
    use std::io::Read as _;

    use super::*;
    use crate::bus::Bus;
    use crate::clock::Clock;
    use crate::options::{Options, PoolOptions};
    use crate::room::{Act, CreateRequest};
    use crate::store::{SqliteStore, Store};
    use crate::wire::Closing;

    // Issue 38 §5: a pool's day lists its games of that day, with their results; its
    // `.tar.gz` holds the finished ones' records, as the games' own; other pools and other
    // days hold none of them; a day that is not on the calendar, or a pool the server has
    // not, is 404.
    #[tokio::test]
    async fn a_pools_day_lists_its_games_and_packs_its_finished_records() {
        let dir = tempfile::tempdir().unwrap();
        let store: Arc<dyn Store> = Arc::new(SqliteStore::open(&dir.path().join("t.db")).unwrap());
        let opts = Options {
            clock: Clock::Wall,
            pools: vec![PoolOptions {
                name: "small".into(),
                game: CreateRequest {
                    width: Some(5),
                    ..CreateRequest::default()
                },
                cgos: None,
            }],
            ..Options::default()
        };
        let games = Games::new(store.clone(), Bus::new(store.clone()), opts)
            .await
            .unwrap();
        let archive = Archive::new(games.clone());
        let mut config = CreateRequest {
            width: Some(5),
            ..CreateRequest::default()
        }
        .config()
        .unwrap();
        config.pool = Some("small".into());
        let done = games.open(config.clone(), "t".into()).await.unwrap().id;
        let on = games.open(config.clone(), "t".into()).await.unwrap().id;
        config.pool = None;
        let elsewhere = games.open(config, "t".into()).await.unwrap().id;
        let close = Act::Close {
            why: Closing::Aborted,
            note: "for the test".into(),
        };
        games.act_as_server(&done, close).await.unwrap();
        let created = store.load(&done).await.unwrap().unwrap().0.created_ms;
        let day = Date::from_unix_seconds(created / 1000);

        let listed = archive.day("small", day).await.unwrap();
        let ids: Vec<(&str, Option<&str>)> = listed
            .games
            .iter()
            .map(|g| (g.id.as_str(), g.result.as_deref()))
            .collect();
        assert_eq!(ids.len(), 2);
        assert!(ids.contains(&(done.as_str(), Some("Void"))) && ids.contains(&(on.as_str(), None)));
        assert!(!listed.truncated);
        let default = archive.day(crate::wire::DEFAULT_POOL, day).await.unwrap();
        assert_eq!(default.games.len(), 1);
        assert_eq!(default.games[0].id, elsewhere);
        let before = Date::from_unix_seconds(created / 1000 - 86_400);
        assert!(archive.day("small", before).await.unwrap().games.is_empty());
        assert!(matches!(
            archive.day("large", day).await,
            Err(ApiError::NotFound(Missing::Pool))
        ));

        let packed = archive.packed("small", day).await.unwrap();
        let mut tar = tar::Archive::new(flate2::read::GzDecoder::new(packed.as_slice()));
        let mut files = Vec::new();
        for entry in tar.entries().unwrap() {
            let mut entry = entry.unwrap();
            let path = entry.path().unwrap().to_string_lossy().into_owned();
            let mut text = String::new();
            entry.read_to_string(&mut text).unwrap();
            files.push((path, text));
        }
        let sgf = games.stored_sgf(&done).await.unwrap().unwrap();
        assert!(sgf.contains("RE[Void]"), "{sgf}");
        assert_eq!(
            files,
            [(format!("{day}/{done}.sgf"), sgf)],
            "the finished game only"
        );
        // Today is not over: not kept, packed again when asked.
        assert!(archive.kept_archive("small", day).is_none());

        // Through the route: the listing, the archive, and what is not found.
        let app = archive.routes();
        let get = async |uri: String| {
            let answer = crate::test_http::call(&app, "GET", &uri, "", None).await;
            (answer.status, answer.kind, answer.body)
        };
        let (status, _, body) = get(format!("/api/pools/small/archive/{day}")).await;
        assert_eq!(status, 200);
        assert_eq!(serde_json::from_slice::<ArchiveDay>(&body).unwrap(), listed);
        let (status, kind, body) = get(format!("/api/pools/small/archive/{day}.tar.gz")).await;
        assert_eq!((status, kind.as_deref()), (200, Some("application/gzip")));
        assert_eq!(body.as_ref(), packed.as_slice());
        for uri in [
            "/api/pools/small/archive/2026-02-30".to_string(),
            "/api/pools/small/archive/yesterday.tar.gz".to_string(),
            format!("/api/pools/large/archive/{day}"),
        ] {
            assert_eq!(get(uri.clone()).await.0, 404, "{uri}");
        }
    }
}
