//! Ratings: every account's Elo from every rated game (goref-tournament's joint fit, anchored
//! at a mean of [`BASE_RATING`]), refitted by the leading server when a rated game finishes
//! and stored, so that every server answers the same (`/api/players`, `/api/players/{name}`,
//! `/api/me`, the lobby's list and its pairing read the stored ratings).
//!
//! A refit costs what changed, not the whole pool again: the fit is goref-tournament's sparse
//! one ([`fit_from`]: linear in the players and the pairings per step, nothing cubic),
//! warm-started from the last fit (kept in memory; the stored ratings when there is none),
//! run on tokio's blocking threads rather than the runtime's, and coalesced: one refit task
//! takes the requests, and however many games finish while it refits, one more refit follows.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Path, Query, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use goref_rules::Outcome;
use goref_tournament::pairing::Scored;
use goref_tournament::rating::{fit_from, Anchor, FitOptions, Intervals, RatedGame, Start};

use crate::bus::{BusEvent, GameEvent};
use crate::error::{ApiError, Missing};
use crate::games::{Follower, Games};
use crate::sessions::account_of_request;
use crate::store::RatedResult;
use crate::wire::{
    check_name, AnchorList, AnchorRequest, AnchorView, CrossLine, Crosstable, MeAnswer,
    PlayerAnswer, PlayerLine, PlayerList, Rating, RatingHistory, RatingPoint, Tally, DEFAULT_POOL,
    MAX_ANCHOR_ELO, MAX_HISTORY,
};

pub use crate::wire::BASE_RATING;

fn key(name: &str) -> String {
    name.to_ascii_lowercase()
}

/// The result of a game as ratings count it, from SGF `RE` (goref's [`Outcome`]); `None` for
/// no result (`Void`) or a text that is no result.
#[must_use]
pub fn rated_result(re: &str) -> Option<Scored> {
    re.parse::<Outcome>().ok().and_then(rated)
}

/// A result as ratings count it; `None` for no result (`Void`).
#[must_use]
pub fn rated(outcome: Outcome) -> Option<Scored> {
    Some(outcome).filter(Outcome::is_decided).map(Scored::from)
}

/// Up to this many rated players the intervals are exact (a conjugate-gradient solve per
/// player); above, goref-tournament's approximation ([`Intervals::Diagonal`], linear in the
/// games: measured within 1% of the exact widths for 150 players with 27 games each, up to 5%
/// too narrow with 12 lopsided games each).
pub const EXACT_INTERVALS_UP_TO: usize = 50;

/// Refits start at most this often: games that finish meanwhile wait for the next. A refit
/// reads every result of its pool and stores every rating, so refitting after each game
/// (about 40 a second at 1,000 games of 9×9 between fast programs) took 16% of the server.
pub const REFIT_EVERY: Duration = Duration::from_secs(1);

/// A fit's estimates by account: where the next refit starts.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LastFit {
    /// Each account's rating in Elo, by name in lower case.
    ratings: HashMap<String, f64>,
    /// Black's colour advantage in Elo, when known.
    colour_advantage: Option<f64>,
    /// The draw parameter, when known.
    draw_parameter: Option<f64>,
}

impl LastFit {
    /// The stored ratings as a start: the ratings only (the store keeps neither the colour
    /// advantage nor the draw parameter).
    #[must_use]
    pub fn from_stored(ratings: &[Rating]) -> LastFit {
        LastFit {
            ratings: ratings.iter().map(|r| (key(&r.name), r.rating)).collect(),
            colour_advantage: None,
            draw_parameter: None,
        }
    }

    /// How many accounts it rates.
    #[must_use]
    pub fn len(&self) -> usize {
        self.ratings.len()
    }

    /// Whether it rates nobody.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.ratings.is_empty()
    }
}

/// Every rating fitted from the rated results, best first.
#[must_use]
pub fn fit_all(results: &[RatedResult]) -> Vec<Rating> {
    fit_all_from(results, None, &[]).0
}

/// [`fit_all`], started from `last` (a previous fit, or the stored ratings): the same ratings
/// (to well within a thousandth of an Elo) in fewer steps. Also returns this fit's estimates,
/// the next refit's start (empty when the fit failed, as the ratings then are).
///
/// `anchors` (account, rating) fix those accounts' ratings: the scale is pinned by the ones
/// that have played (goref-tournament's [`Anchor::Players`]); without any, by the mean of
/// every rating at [`BASE_RATING`].
#[must_use]
pub fn fit_all_from(
    results: &[RatedResult],
    last: Option<&LastFit>,
    anchors: &[(String, f64)],
) -> (Vec<Rating>, LastFit) {
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut names: Vec<String> = Vec::new();
    let mut games = Vec::with_capacity(results.len());
    for RatedResult {
        black,
        white,
        result,
    } in results
    {
        let Some(result) = rated(*result) else {
            continue;
        };
        let mut id = |name: &String| {
            *index.entry(key(name)).or_insert_with(|| {
                names.push(name.clone());
                names.len() - 1
            })
        };
        let (b, w) = (id(black), id(white));
        games.push(RatedGame {
            black: b,
            white: w,
            result,
        });
    }
    let fixed: Vec<(usize, f64)> = anchors
        .iter()
        .filter(|(_, r)| r.is_finite())
        .filter_map(|(name, r)| Some((*index.get(&key(name))?, *r)))
        .collect();
    let options = FitOptions {
        anchor: if fixed.is_empty() {
            Anchor::Mean(BASE_RATING)
        } else {
            Anchor::Players(fixed)
        },
        ..FitOptions::default()
    };
    let start = last.map(|last| Start {
        ratings: names
            .iter()
            .map(|name| last.ratings.get(&key(name)).copied())
            .collect(),
        colour_advantage: last.colour_advantage,
        draw_parameter: last.draw_parameter,
    });
    let intervals = if names.len() <= EXACT_INTERVALS_UP_TO {
        Intervals::Exact
    } else {
        Intervals::Diagonal
    };
    let Ok(fitted) = fit_from(names.len(), &games, &options, start.as_ref(), intervals) else {
        return (Vec::new(), LastFit::default());
    };
    let mut ratings: Vec<Rating> = names
        .iter()
        .enumerate()
        .map(|(i, name)| Rating {
            name: name.clone(),
            rating: fitted.ratings[i],
            interval: fitted.intervals[i],
            games: 0,
            wins: 0,
            losses: 0,
            draws: 0,
        })
        .collect();
    for g in &games {
        let mut count = |i: usize, score: f64| {
            let r = &mut ratings[i];
            r.games += 1;
            match score {
                s if s > 0.75 => r.wins += 1,
                s if s < 0.25 => r.losses += 1,
                _ => r.draws += 1,
            }
        };
        count(g.black, g.result.black_score());
        if g.white != g.black {
            count(g.white, g.result.white_score());
        }
    }
    let next = LastFit {
        ratings: names
            .iter()
            .zip(&fitted.ratings)
            .map(|(name, &r)| (key(name), r))
            .collect(),
        colour_advantage: Some(fitted.colour_advantage),
        draw_parameter: Some(fitted.draw_parameter),
    };
    (crate::store::best_first(ratings), next)
}

/// The refit task's state ([`Ratings::run`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Refits {
    /// The pools a refit was asked for since their last one started.
    asked: std::collections::BTreeSet<String>,
    /// A refit is running.
    running: bool,
    /// Refits done by the task.
    done: u64,
}

/// The ratings feature.
pub struct Ratings {
    games: Arc<Games>,
    /// One refit at a time (each reads every result of its pool stored before it).
    refitting: tokio::sync::Mutex<()>,
    /// Each pool's last fit's estimates, its next refit's start; none: start from the
    /// stored ratings.
    last: std::sync::Mutex<HashMap<String, Arc<LastFit>>>,
    /// The server's pools, by name, the default first.
    pools: Vec<String>,
    /// What the refit task is asked and doing.
    refits: tokio::sync::watch::Sender<Refits>,
}

impl Ratings {
    /// The feature over the games service (its store, its bus, its leadership).
    #[must_use]
    pub fn new(games: Arc<Games>) -> Arc<Ratings> {
        let pools = games.options().pool_names();
        Arc::new(Ratings {
            games,
            refitting: tokio::sync::Mutex::new(()),
            last: std::sync::Mutex::new(HashMap::new()),
            pools,
            refits: tokio::sync::watch::channel(Refits::default()).0,
        })
    }

    /// `GET /api/players`, `/api/players/{name}`, `/api/players/{name}/crosstable`,
    /// `/api/pools/{pool}/standings`, `/api/me`.
    pub fn routes(self: Arc<Ratings>) -> Router {
        Router::new()
            .route("/api/me", get(me))
            .route("/api/players", get(players))
            .route("/api/pools/{pool}/standings", get(standings))
            .route("/api/pools/{pool}/anchors", get(anchors_route))
            .route(
                "/api/pools/{pool}/anchors/{name}",
                axum::routing::put(set_anchor).delete(free_anchor),
            )
            .route("/api/players/{name}", get(player))
            .route("/api/players/{name}/crosstable", get(crosstable_route))
            .route("/api/players/{name}/history", get(history_route))
            .with_state(self)
    }

    /// Refits every rating of `pool` from its stored results and stores them; tells every
    /// server.
    ///
    /// # Errors
    ///
    /// The store failed (nothing changed).
    ///
    /// The fit starts from the last one this server made of the pool, or from its stored
    /// ratings, and runs on tokio's blocking threads.
    pub async fn refit(&self, pool: &str) -> Result<(), crate::store::StoreError> {
        let _one = self.refitting.lock().await;
        let store = self.games.store();
        let results = store.rated_results(pool).await?;
        let anchors = store.anchors(pool).await?;
        let last = self.last.lock().expect("last fit").get(pool).cloned();
        let last = match last {
            Some(last) => last,
            None => Arc::new(LastFit::from_stored(&store.ratings(pool).await?)),
        };
        let fitted =
            tokio::task::spawn_blocking(move || fit_all_from(&results, Some(&last), &anchors))
                .await;
        let (ratings, next) = match fitted {
            Ok(fitted) => fitted,
            Err(e) => std::panic::resume_unwind(e.into_panic()),
        };
        {
            let mut last = self.last.lock().expect("last fit");
            if next.is_empty() {
                last.remove(pool);
            } else {
                last.insert(pool.to_string(), Arc::new(next));
            }
        }
        // The history of those who played since the ratings stored: their new ratings.
        let before: HashMap<String, u32> = store
            .ratings(pool)
            .await?
            .into_iter()
            .map(|r| (key(&r.name), r.games))
            .collect();
        let at_ms = self.games.now_ms();
        let played: Vec<(String, RatingPoint)> = ratings
            .iter()
            .filter(|r| before.get(&key(&r.name)) != Some(&r.games))
            .map(|r| {
                let point = RatingPoint {
                    at_ms,
                    rating: r.rating,
                    games: r.games,
                };
                (r.name.clone(), point)
            })
            .collect();
        store.save_ratings(pool, ratings).await?;
        store.append_history(pool, played).await?;
        self.games.bus().publish(BusEvent::Ratings).await;
        Ok(())
    }

    /// Listens to the bus until the server stops: when a rated game between accounts
    /// finishes, the leading server refits (and, on taking the lead, once, in case a result
    /// came while nobody led). The refits are one task's: games finishing while it refits
    /// cause one refit more after it, not one each, and refits start at most every
    /// [`REFIT_EVERY`].
    pub async fn run(self: Arc<Ratings>) {
        tokio::select! {
            () = self.games.follow(self.as_ref()) => {}
            () = self.refit_when_asked() => {}
        }
    }

    /// The refit task: one refit at a time, of each pool asked for since its last began.
    async fn refit_when_asked(&self) {
        let mut asked = self.refits.subscribe();
        let mut last_start: Option<tokio::time::Instant> = None;
        loop {
            let open = asked.wait_for(|r| !r.asked.is_empty()).await.is_ok();
            if !open {
                return;
            }
            if let Some(last) = last_start {
                tokio::time::sleep_until(last + REFIT_EVERY).await;
            }
            last_start = Some(tokio::time::Instant::now());
            let mut pools = std::collections::BTreeSet::new();
            self.refits.send_modify(|r| {
                pools = std::mem::take(&mut r.asked);
                r.running = true;
            });
            for pool in pools {
                self.refit_logged(&pool).await;
            }
            self.refits.send_modify(|r| {
                r.running = false;
                r.done += 1;
            });
        }
    }

    /// Asks the refit task for a refit of `pool` (one more, if it is refitting).
    fn ask_refit(&self, pool: &str) {
        self.refits.send_modify(|r| {
            r.asked.insert(pool.to_string());
        });
    }

    /// What the ratings do with one event of the bus (the leader asks for a refit after a
    /// rated game's end; the refit task does it).
    pub async fn on_event(&self, event: &BusEvent) {
        if let BusEvent::Game(GameEvent::Finished { config, result, .. }) = event {
            if config.rated
                && config.players.is_some()
                && rated(*result).is_some()
                && self.games.leads()
            {
                self.ask_refit(config.pool());
            }
        }
    }

    /// The leader catching up: a refit of every pool from the stored ratings (another server
    /// may have refitted since this one's last fit).
    fn catch_up(&self) {
        self.last.lock().expect("last fit").clear();
        for pool in &self.pools {
            self.ask_refit(pool);
        }
    }

    async fn refit_logged(&self, pool: &str) {
        if let Err(e) = self.refit(pool).await {
            eprintln!("goref serve: ratings of pool {pool} not refitted: {e:#}");
        }
    }

    /// The pool named `name` (one of this server's; `None`: the default pool), or 404
    /// `not_found`.
    fn pool<'a>(&self, name: Option<&'a str>) -> Result<&'a str, ApiError> {
        let name = name.unwrap_or(DEFAULT_POOL);
        if self.pools.iter().any(|p| p == name) {
            Ok(name)
        } else {
            Err(ApiError::NotFound(Missing::Pool))
        }
    }

    /// The stored rating of account `name` in the default pool.
    async fn of(&self, name: &str) -> Result<Option<Rating>, ApiError> {
        let all = self
            .games
            .store()
            .ratings(DEFAULT_POOL)
            .await
            .map_err(|e| ApiError::storage(&e))?;
        Ok(all.into_iter().find(|r| key(&r.name) == key(name)))
    }
}

/// `GET /api/me` (with `Authorization: Bearer TOKEN`): the account and its rating.
async fn me(State(ratings): State<Arc<Ratings>>, headers: HeaderMap) -> Result<Response, ApiError> {
    let account = account_of_request(ratings.games.store().as_ref(), &headers).await?;
    let rating = ratings.of(&account.name).await?;
    Ok(axum::Json(MeAnswer { account, rating }).into_response())
}

/// Which pool a request asks about (`?pool=P`; default: the default pool).
#[derive(Debug, Default, serde::Deserialize)]
struct PoolQuery {
    pool: Option<String>,
}

/// `GET /api/players[?pool=P]`: every account with its rating in the pool (default: the
/// default pool), rated players best first.
async fn players(
    State(ratings): State<Arc<Ratings>>,
    Query(q): Query<PoolQuery>,
) -> Result<Response, ApiError> {
    let pool = ratings.pool(q.pool.as_deref())?;
    player_list(&ratings, pool, true).await
}

/// `GET /api/pools/{pool}/standings`: the pool's rated players, best first.
async fn standings(
    State(ratings): State<Arc<Ratings>>,
    Path(pool): Path<String>,
) -> Result<Response, ApiError> {
    let pool = ratings.pool(Some(&pool))?;
    player_list(&ratings, pool, false).await
}

/// The players rated in `pool`, best first, then (when `unrated`) every other account.
async fn player_list(ratings: &Ratings, pool: &str, unrated: bool) -> Result<Response, ApiError> {
    let store = ratings.games.store();
    let accounts = store.accounts().await.map_err(|e| ApiError::storage(&e))?;
    let standings = store
        .ratings(pool)
        .await
        .map_err(|e| ApiError::storage(&e))?;
    let anchors: std::collections::HashSet<String> = store
        .anchors(pool)
        .await
        .map_err(|e| ApiError::storage(&e))?
        .into_iter()
        .map(|(name, _)| key(&name))
        .collect();
    let program: HashMap<String, bool> =
        accounts.iter().map(|a| (key(&a.name), a.program)).collect();
    let rated = standings.iter().map(|r| PlayerLine {
        name: r.name.clone(),
        program: program.get(&key(&r.name)).copied().unwrap_or(false),
        rating: Some(r.rating.round()),
        interval: Some([r.interval.0.round(), r.interval.1.round()]),
        games: r.games,
        wins: Some(r.wins),
        losses: Some(r.losses),
        draws: Some(r.draws),
        // An anchor's rating is not an estimate: never provisional.
        provisional: r.provisional() && !anchors.contains(&key(&r.name)),
        anchor: anchors.contains(&key(&r.name)),
    });
    let rated_names: std::collections::HashSet<String> =
        standings.iter().map(|r| key(&r.name)).collect();
    let unrated = accounts
        .iter()
        .filter(|a| unrated && !rated_names.contains(&key(&a.name)))
        .map(|a| PlayerLine {
            name: a.name.clone(),
            program: a.program,
            rating: None,
            interval: None,
            games: 0,
            wins: None,
            losses: None,
            draws: None,
            provisional: false,
            anchor: anchors.contains(&key(&a.name)),
        });
    let players = rated.chain(unrated).collect();
    Ok(axum::Json(PlayerList { players }).into_response())
}

/// `GET /api/players/{name}/history[?pool=P]`: the account's ratings after each refit in
/// which it had played (default: in the default pool).
async fn history_route(
    State(ratings): State<Arc<Ratings>>,
    Path(name): Path<String>,
    Query(q): Query<PoolQuery>,
) -> Result<Response, ApiError> {
    let pool = ratings.pool(q.pool.as_deref())?;
    let store = ratings.games.store();
    let account = account_named(store.as_ref(), &name).await?;
    let points = store
        .history(pool, &account.name, MAX_HISTORY)
        .await
        .map_err(|e| ApiError::storage(&e))?;
    Ok(axum::Json(RatingHistory {
        name: account.name,
        pool: pool.to_string(),
        points,
    })
    .into_response())
}

/// `GET /api/pools/{pool}/anchors`.
async fn anchors_route(
    State(ratings): State<Arc<Ratings>>,
    Path(pool): Path<String>,
) -> Result<Response, ApiError> {
    let pool = ratings.pool(Some(&pool))?;
    Ok(axum::Json(ratings.anchor_list(pool).await?).into_response())
}

/// `PUT /api/pools/{pool}/anchors/{name}` `{"rating": R}` (the tournament director): fixes
/// the account's rating in the pool; the pool is refitted. Answers the pool's anchors.
async fn set_anchor(
    State(ratings): State<Arc<Ratings>>,
    Path((pool, name)): Path<(String, String)>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Result<Response, ApiError> {
    let request: AnchorRequest =
        serde_json::from_slice(&body).map_err(|e| ApiError::Malformed(e.to_string()))?;
    if !(request.rating.is_finite() && request.rating.abs() <= MAX_ANCHOR_ELO) {
        return Err(ApiError::Invalid(format!(
            "an anchor's rating is a number from -{MAX_ANCHOR_ELO} to {MAX_ANCHOR_ELO}"
        )));
    }
    ratings
        .change_anchor(&pool, &name, &headers, Some(request.rating))
        .await
}

/// `DELETE /api/pools/{pool}/anchors/{name}` (the tournament director): the account's rating
/// is fitted again like anyone's.
async fn free_anchor(
    State(ratings): State<Arc<Ratings>>,
    Path((pool, name)): Path<(String, String)>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    ratings.change_anchor(&pool, &name, &headers, None).await
}

impl Ratings {
    /// The anchors of `pool`.
    async fn anchor_list(&self, pool: &str) -> Result<AnchorList, ApiError> {
        let anchors = self
            .games
            .store()
            .anchors(pool)
            .await
            .map_err(|e| ApiError::storage(&e))?;
        Ok(AnchorList {
            pool: pool.to_string(),
            anchors: anchors
                .into_iter()
                .map(|(name, rating)| AnchorView { name, rating })
                .collect(),
        })
    }

    /// The TD fixes (or frees) account `name`'s rating in `pool`; the pool is refitted here.
    async fn change_anchor(
        &self,
        pool: &str,
        name: &str,
        headers: &HeaderMap,
        rating: Option<f64>,
    ) -> Result<Response, ApiError> {
        let store = self.games.store();
        let director = account_of_request(store.as_ref(), headers).await?;
        if !director.td {
            return Err(ApiError::NotTd);
        }
        let pool = self.pool(Some(pool))?;
        let account = account_named(store.as_ref(), name).await?;
        store
            .set_anchor(pool, &account.name, rating)
            .await
            .map_err(|e| ApiError::storage(&e))?;
        self.ask_refit(pool);
        Ok(axum::Json(self.anchor_list(pool).await?).into_response())
    }
}

/// The account named `name` (without regard to case), or 404 `not_found`.
async fn account_named(
    store: &dyn crate::store::Store,
    name: &str,
) -> Result<crate::wire::Account, ApiError> {
    if check_name(name).is_err() {
        return Err(ApiError::NotFound(Missing::Player));
    }
    match store.account(name).await {
        Ok(Some((a, _))) => Ok(a),
        Ok(None) => Err(ApiError::NotFound(Missing::Player)),
        Err(e) => Err(ApiError::storage(&e)),
    }
}

/// `GET /api/players/{name}`: the account, its rating and its games, newest first.
async fn player(
    State(ratings): State<Arc<Ratings>>,
    Path(name): Path<String>,
) -> Result<Response, ApiError> {
    let store = ratings.games.store();
    let account = account_named(store.as_ref(), &name).await?;
    let games = store
        .games_of(&name, 200)
        .await
        .map_err(|e| ApiError::storage(&e))?;
    let rating = ratings.of(&name).await?;
    let mut pools = std::collections::BTreeMap::new();
    for pool in ratings.pools.iter().filter(|p| *p != DEFAULT_POOL) {
        let all = store
            .ratings(pool)
            .await
            .map_err(|e| ApiError::storage(&e))?;
        if let Some(r) = all.into_iter().find(|r| key(&r.name) == key(&name)) {
            pools.insert(pool.clone(), r);
        }
    }
    Ok(axum::Json(PlayerAnswer {
        account,
        rating,
        pools,
        games,
    })
    .into_response())
}

/// Account `name`'s rated results against each opponent, by colour, from every rated result
/// (`ratings` gives the opponents' ratings): most games first, equal ones by name. Names are
/// matched without regard to case; an opponent is named as in its latest game.
#[must_use]
pub fn crosstable(name: &str, results: &[RatedResult], ratings: &[Rating]) -> Vec<CrossLine> {
    let me = key(name);
    let mut lines: HashMap<String, CrossLine> = HashMap::new();
    for r in results {
        let (mine, theirs, i_am_black) = if key(&r.black) == me {
            (&r.black, &r.white, true)
        } else if key(&r.white) == me {
            (&r.white, &r.black, false)
        } else {
            continue;
        };
        let Some(scored) = rated(r.result) else {
            continue;
        };
        if key(mine) == key(theirs) {
            continue;
        }
        let line = lines.entry(key(theirs)).or_insert_with(|| CrossLine {
            name: theirs.clone(),
            rating: None,
            games: 0,
            as_black: Tally::default(),
            as_white: Tally::default(),
        });
        theirs.clone_into(&mut line.name);
        line.games += 1;
        let tally = if i_am_black {
            &mut line.as_black
        } else {
            &mut line.as_white
        };
        match (scored, i_am_black) {
            (Scored::Draw, _) => tally.draws += 1,
            (Scored::BlackWins, true) | (Scored::WhiteWins, false) => tally.wins += 1,
            _ => tally.losses += 1,
        }
    }
    for r in ratings {
        if let Some(line) = lines.get_mut(&key(&r.name)) {
            line.rating = Some(r.rating.round());
        }
    }
    let mut lines: Vec<CrossLine> = lines.into_values().collect();
    lines.sort_by(|a, b| {
        b.games
            .cmp(&a.games)
            .then_with(|| key(&a.name).cmp(&key(&b.name)))
    });
    lines
}

/// `GET /api/players/{name}/crosstable[?pool=P]`: [`crosstable`] of the pool's stored
/// results (default: the default pool's).
async fn crosstable_route(
    State(ratings): State<Arc<Ratings>>,
    Path(name): Path<String>,
    Query(q): Query<PoolQuery>,
) -> Result<Response, ApiError> {
    let pool = ratings.pool(q.pool.as_deref())?;
    let store = ratings.games.store();
    let account = account_named(store.as_ref(), &name).await?;
    let results = store
        .rated_results(pool)
        .await
        .map_err(|e| ApiError::storage(&e))?;
    let stored = store
        .ratings(pool)
        .await
        .map_err(|e| ApiError::storage(&e))?;
    Ok(axum::Json(Crosstable {
        opponents: crosstable(&account.name, &results, &stored),
        name: account.name,
    })
    .into_response())
}

impl Follower for Ratings {
    fn on_event(&self, event: &BusEvent) -> impl std::future::Future<Output = ()> + Send {
        Ratings::on_event(self, event)
    }

    fn catch_up(&self) -> impl std::future::Future<Output = ()> + Send {
        Ratings::catch_up(self);
        std::future::ready(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rating_is_provisional_while_its_interval_is_wider_than_100_elo_each_side() {
        let at = |low: f64, high: f64| Rating {
            name: "a".into(),
            rating: (low + high) / 2.0,
            interval: (low, high),
            games: 0,
            wins: 0,
            losses: 0,
            draws: 0,
        };
        assert!(at(1_300.0, 1_700.0).provisional());
        assert!(at(1_450.0, 1_650.5).provisional());
        assert!(!at(1_450.0, 1_650.0).provisional());
        assert!(!at(1_480.0, 1_520.0).provisional());
    }

    #[test]
    fn a_crosstable_counts_each_opponent_by_colour_and_leaves_out_void_games() {
        let results = [
            rated_row("Ann", "bob", "B+R"),
            rated_row("bob", "ann", "B+3.5"),
            rated_row("ann", "Bob", "0"),
            rated_row("ann", "cid", "W+T"),
            rated_row("ann", "bob", "Void"),
            rated_row("bob", "cid", "B+R"),
        ];
        let ratings = [Rating {
            name: "bob".into(),
            rating: 1_512.4,
            interval: (1_400.0, 1_600.0),
            games: 4,
            wins: 2,
            losses: 1,
            draws: 1,
        }];
        let lines = crosstable("ANN", &results, &ratings);
        let black = |w, l, d| Tally {
            wins: w,
            losses: l,
            draws: d,
        };
        assert_eq!(
            lines,
            [
                CrossLine {
                    name: "Bob".into(),
                    rating: Some(1_512.0),
                    games: 3,
                    as_black: black(1, 0, 1),
                    as_white: black(0, 1, 0),
                },
                CrossLine {
                    name: "cid".into(),
                    rating: None,
                    games: 1,
                    as_black: black(0, 1, 0),
                    as_white: Tally::default(),
                },
            ]
        );
        assert!(crosstable("dan", &results, &ratings).is_empty());
    }

    fn rated_row(black: &str, white: &str, re: &str) -> RatedResult {
        RatedResult {
            black: black.into(),
            white: white.into(),
            result: re.parse().unwrap(),
        }
    }
    use crate::bus::Bus;
    use crate::clock::Clock;
    use crate::options::Options;
    use crate::room::Players;
    use crate::store::{SqliteStore, Store, StoredGame};
    use goref_rules::ByColor;

    #[test]
    fn results_count_as_the_rating_fit_reads_them() {
        assert_eq!(rated_result("B+R"), Some(Scored::BlackWins));
        assert_eq!(rated_result("W+3.5"), Some(Scored::WhiteWins));
        assert_eq!(rated_result("0"), Some(Scored::Draw));
        assert_eq!(rated_result("Draw"), Some(Scored::Draw));
        assert_eq!(rated_result("Void"), None);
        assert_eq!(rated_result("?"), None);
    }

    #[test]
    fn the_winner_of_every_game_rates_above_the_loser() {
        let results: Vec<RatedResult> = (0..6)
            .map(|i| {
                if i % 2 == 0 {
                    rated_row("a", "b", "B+R")
                } else {
                    rated_row("b", "a", "W+1.5")
                }
            })
            .collect();
        let s = fit_all(&results);
        assert_eq!(s.len(), 2);
        assert_eq!((s[0].name.as_str(), s[0].wins, s[0].losses), ("a", 6, 0));
        assert!(s[0].rating > s[1].rating + 100.0);
        assert!(((s[0].rating + s[1].rating) / 2.0 - BASE_RATING).abs() < 1e-6);
    }

    /// The games service over a fresh SQLite store, on tokio's clock; it leads (no leader's
    /// lock: a lone server).
    async fn service(dir: &tempfile::TempDir) -> (Arc<dyn Store>, Arc<Ratings>) {
        let store: Arc<dyn Store> = Arc::new(SqliteStore::open(&dir.path().join("t.db")).unwrap());
        let opts = Options {
            clock: Clock::tokio(),
            ..Options::default()
        };
        let games = Games::new(store.clone(), Bus::new(store.clone()), opts)
            .await
            .unwrap();
        (store, Ratings::new(games))
    }

    /// Stores a finished rated game between two of ten accounts, its result drawn from a
    /// fixed sequence (stronger accounts win more often, some draws), and returns the bus's
    /// news of it.
    async fn finish_a_game(store: &Arc<dyn Store>, n: u64) -> BusEvent {
        finish_a_game_in(store, n, None).await
    }

    /// As [`finish_a_game`], in pool `pool` (`None`: the default).
    async fn finish_a_game_in(store: &Arc<dyn Store>, n: u64, pool: Option<&str>) -> BusEvent {
        let (a, b) = (n % 10, (n * 7 + 3) % 10);
        let b = if a == b { (b + 1) % 10 } else { b };
        let (black, white) = (format!("p{a}"), format!("P{b}"));
        let result = match (n * 2_654_435_761) % 7 {
            0 => "0",
            1 | 2 => "W+R",
            _ if a > b => "B+3.5",
            _ => "W+T",
        };
        let mut config = crate::room::CreateRequest::default().config().unwrap();
        config.players = Some(Players {
            black: black.clone(),
            white: white.clone(),
        });
        config.black = black;
        config.white = white;
        config.rated = true;
        config.pool = pool.map(str::to_string);
        let id = format!("g{n}");
        store
            .create(StoredGame {
                id: id.clone(),
                created_ms: 1000 + n,
                config: config.clone(),
                secret_hashes: ByColor::new("x".into(), "y".into()),
                creator: String::new(),
            })
            .await
            .unwrap();
        store.finish(&id, result.parse().unwrap()).await.unwrap();
        BusEvent::Game(GameEvent::Finished {
            id,
            config: Box::new(config),
            result: result.parse().unwrap(),
        })
    }

    /// Waits until the refit task has nothing asked of it and nothing running.
    async fn settled(ratings: &Ratings) -> u64 {
        let mut refits = ratings.refits.subscribe();
        let state = refits
            .wait_for(|r| r.asked.is_empty() && !r.running)
            .await
            .unwrap()
            .clone();
        state.done
    }

    /// The stored ratings are `fit_all` of every stored result: the same accounts and counts,
    /// the same ratings and intervals to a thousandth of an Elo.
    async fn stored_equal_a_fit_from_scratch(store: &Arc<dyn Store>) {
        let stored = store.ratings(DEFAULT_POOL).await.unwrap();
        let expected = fit_all(&store.rated_results(DEFAULT_POOL).await.unwrap());
        assert_eq!(stored.len(), expected.len());
        assert!(!stored.is_empty());
        for (s, e) in stored.iter().zip(&expected) {
            assert_eq!(
                (&s.name, s.games, s.wins, s.losses, s.draws),
                (&e.name, e.games, e.wins, e.losses, e.draws)
            );
            assert!((s.rating - e.rating).abs() < 1e-3, "{s:?} vs {e:?}");
            assert!((s.interval.0 - e.interval.0).abs() < 1e-3, "{s:?} vs {e:?}");
            assert!((s.interval.1 - e.interval.1).abs() < 1e-3, "{s:?} vs {e:?}");
        }
    }

    // Games finishing while a refit runs cause one refit more, not one each; the stored
    // ratings are those of every result. Then, one game at a time, one refit each, each
    // warm-started from the last fit, and still a fit of every result.
    #[tokio::test(start_paused = true)]
    async fn games_finishing_during_a_refit_cause_one_more_refit() {
        let dir = tempfile::tempdir().unwrap();
        let (store, ratings) = service(&dir).await;
        let task = {
            let ratings = ratings.clone();
            tokio::spawn(async move { ratings.refit_when_asked().await })
        };
        // A refit in progress: the task's refits wait for it.
        let busy = ratings.refitting.lock().await;
        let games = 20;
        for n in 0..games {
            let event = finish_a_game(&store, n).await;
            ratings.on_event(&event).await;
            tokio::task::yield_now().await;
        }
        assert_eq!(ratings.refits.borrow().done, 0);
        drop(busy);
        let refits = settled(&ratings).await;
        assert!(
            (1..=2).contains(&refits),
            "{refits} refits for {games} games"
        );
        stored_equal_a_fit_from_scratch(&store).await;
        assert!(
            ratings.last.lock().unwrap().contains_key(DEFAULT_POOL),
            "the last fit kept"
        );

        for n in games..games + 5 {
            let event = finish_a_game(&store, n).await;
            ratings.on_event(&event).await;
            assert_eq!(settled(&ratings).await, refits + 1 + n - games);
            stored_equal_a_fit_from_scratch(&store).await;
        }
        // Games that are not rated, or not between accounts, or without result, ask nothing.
        let BusEvent::Game(GameEvent::Finished { id, config, .. }) =
            finish_a_game(&store, 99).await
        else {
            unreachable!()
        };
        let mut unrated = config.clone();
        unrated.rated = false;
        for (config, result) in [(unrated, "B+R"), (config, "Void")] {
            let event = BusEvent::Game(GameEvent::Finished {
                id: id.clone(),
                config,
                result: result.parse().unwrap(),
            });
            ratings.on_event(&event).await;
            assert!(ratings.refits.borrow().asked.is_empty());
        }
        task.abort();
    }

    // Issue 38 §2: a game of a pool refits that pool's ratings only, from that pool's results;
    // the API answers each pool's standings and crosstables, and 404 for a pool it has not.
    #[tokio::test(start_paused = true)]
    async fn each_pool_has_its_own_ratings() {
        let dir = tempfile::tempdir().unwrap();
        let (store, ratings) = service(&dir).await;
        let task = {
            let ratings = ratings.clone();
            tokio::spawn(async move { ratings.refit_when_asked().await })
        };
        for n in 0..12 {
            let pool = (n % 3 == 0).then_some("small");
            let event = finish_a_game_in(&store, n, pool).await;
            ratings.on_event(&event).await;
            settled(&ratings).await;
        }
        let small = store.ratings("small").await.unwrap();
        let default = store.ratings(DEFAULT_POOL).await.unwrap();
        let games = |r: &[Rating]| r.iter().map(|r| r.games).sum::<u32>() / 2;
        assert_eq!((games(&small), games(&default)), (4, 8));
        let expected = fit_all(&store.rated_results("small").await.unwrap());
        let names = |r: &[Rating]| r.iter().map(|r| r.name.clone()).collect::<Vec<_>>();
        assert_eq!(names(&small), names(&expected));
        for (s, e) in small.iter().zip(&expected) {
            assert!((s.rating - e.rating).abs() < 1e-3, "{s:?} vs {e:?}");
        }
        task.abort();
        // Through the routes: `default` is the pairing flags' pool; others are not found.
        let app = ratings.clone().routes();
        let get = async |uri: &str| {
            let answer = crate::test_http::call(&app, "GET", uri, "", None).await;
            (answer.status, answer.text())
        };
        let (status, body) = get("/api/pools/default/standings").await;
        assert_eq!(status, 200, "{body}");
        let list: PlayerList = serde_json::from_str(&body).unwrap();
        assert_eq!(list.players.len(), default.len(), "rated players only");
        assert_eq!(get("/api/pools/small/standings").await.0, 404);
        // One refit after each game: each of a player's games added a point to its history,
        // its count of games growing by one each time.
        let history = store.history(DEFAULT_POOL, "p1", 100).await.unwrap();
        let games: Vec<u32> = history.iter().map(|p| p.games).collect();
        let rated = default.iter().find(|r| r.name.eq_ignore_ascii_case("p1"));
        assert_eq!(games.last().copied(), rated.map(|r| r.games));
        assert!(games.windows(2).all(|w| w[1] == w[0] + 1), "{games:?}");
        assert!(store.history("small", "p1", 100).await.unwrap().len() <= 4);
        assert_eq!(get("/api/players?pool=nope").await.0, 404);
    }

    // Issue 38 §4: anchors keep the ratings the tournament director fixed, after games and
    // refits, and pin the scale; the others are fitted around them; only the TD sets them.
    #[tokio::test(start_paused = true)]
    async fn anchors_keep_their_ratings_and_only_the_td_sets_them() {
        let dir = tempfile::tempdir().unwrap();
        let (store, ratings) = service(&dir).await;
        for n in 0..40 {
            finish_a_game(&store, n).await;
        }
        ratings.refit(DEFAULT_POOL).await.unwrap();
        let free = store.ratings(DEFAULT_POOL).await.unwrap();
        // The accounts p0 (black in games) and P3, and a TD's session.
        for (name, created_ms) in [("boss", 1), ("p0", 2), ("P3", 3)] {
            let account = crate::store::NewAccount {
                name: name.into(),
                phc: "x".into(),
                program: true,
                created_ms,
            };
            store
                .create_account(account, Some("boss".into()))
                .await
                .unwrap();
        }
        let token = "td-token";
        store
            .create_session(crate::sessions::hash_secret(token), "boss".into(), 5)
            .await
            .unwrap();
        let app = ratings.clone().routes();
        let call = async |method: &str, uri: &str, body: &str, token: Option<&str>| {
            let answer = crate::test_http::call(&app, method, uri, body, token).await;
            (answer.status, answer.text())
        };
        let put = "/api/pools/default/anchors/p0";
        assert_eq!(call("PUT", put, r#"{"rating":1800}"#, None).await.0, 401);
        assert_eq!(
            call("PUT", put, r#"{"rating":"high"}"#, Some(token))
                .await
                .0,
            400
        );
        assert_eq!(
            call("PUT", put, r#"{"rating":1e9}"#, Some(token)).await.0,
            400
        );
        assert_eq!(
            call(
                "PUT",
                "/api/pools/nope/anchors/p0",
                r#"{"rating":1}"#,
                Some(token)
            )
            .await
            .0,
            404
        );
        let (status, body) = call("PUT", put, r#"{"rating":1800}"#, Some(token)).await;
        assert_eq!(status, 200, "{body}");
        let (status, _) = call(
            "PUT",
            "/api/pools/default/anchors/p3",
            r#"{"rating":1000.5}"#,
            Some(token),
        )
        .await;
        assert_eq!(status, 200);
        let (_, body) = call("GET", "/api/pools/default/anchors", "", None).await;
        let list: AnchorList = serde_json::from_str(&body).unwrap();
        let names: Vec<(&str, f64)> = list
            .anchors
            .iter()
            .map(|a| (a.name.as_str(), a.rating))
            .collect();
        assert_eq!(names, [("p0", 1800.0), ("P3", 1000.5)]);

        let rating_of = |all: &[Rating], name: &str| {
            all.iter()
                .find(|r| key(&r.name) == key(name))
                .unwrap()
                .rating
        };
        for n in 40..60 {
            finish_a_game(&store, n).await;
            ratings.refit(DEFAULT_POOL).await.unwrap();
            let now = store.ratings(DEFAULT_POOL).await.unwrap();
            assert_eq!(rating_of(&now, "p0"), 1800.0, "after game {n}");
            assert_eq!(rating_of(&now, "P3"), 1000.5, "after game {n}");
        }
        // The others moved with the anchors: the gaps between them stay as the games say,
        // not as the mean of 1500 said.
        let anchored = store.ratings(DEFAULT_POOL).await.unwrap();
        assert!((rating_of(&free, "p5") - rating_of(&anchored, "p5")).abs() > 1.0);
        let (_, body) = call("GET", "/api/pools/default/standings", "", None).await;
        let list: PlayerList = serde_json::from_str(&body).unwrap();
        let line = list.players.iter().find(|p| p.name == "p0").unwrap();
        assert!(line.anchor && !line.provisional, "{line:?}");
        assert!(!list.players.iter().find(|p| p.name == "p5").unwrap().anchor);
        // p3's history through the API: its fitted rating before it was an anchor, then a
        // point for each refit after a game of its, at the rating fixed.
        let (status, body) = call("GET", "/api/players/P3/history", "", None).await;
        assert_eq!(status, 200, "{body}");
        let history: RatingHistory = serde_json::from_str(&body).unwrap();
        assert_eq!(
            (history.name.as_str(), history.pool.as_str()),
            ("P3", DEFAULT_POOL)
        );
        let (first, anchored) = history.points.split_first().unwrap();
        assert_eq!(first.rating, rating_of(&free, "P3"));
        assert!(!anchored.is_empty());
        assert!(anchored.iter().all(|p| p.rating == 1000.5), "{history:?}");
        assert!(history.points.windows(2).all(|w| w[1].games > w[0].games));
        assert_eq!(
            call("GET", "/api/players/nobody/history", "", None).await.0,
            404
        );
        // Freed, p0 is fitted again.
        let (status, body) = call("DELETE", put, "", Some(token)).await;
        assert_eq!(status, 200, "{body}");
        ratings.refit(DEFAULT_POOL).await.unwrap();
        let freed = store.ratings(DEFAULT_POOL).await.unwrap();
        assert_ne!(rating_of(&freed, "p0"), 1800.0);
        assert_eq!(rating_of(&freed, "P3"), 1000.5);
    }

    // Without a fit in memory (a server started, or taking the lead), the refit starts from
    // the stored ratings, whatever they are, and reaches the fit of every result.
    #[tokio::test(start_paused = true)]
    async fn a_refit_starts_from_the_stored_ratings() {
        let dir = tempfile::tempdir().unwrap();
        let (store, ratings) = service(&dir).await;
        for n in 0..30 {
            finish_a_game(&store, n).await;
        }
        let mut stale = fit_all(&store.rated_results(DEFAULT_POOL).await.unwrap());
        for (i, r) in stale.iter_mut().enumerate() {
            r.rating += if i % 2 == 0 { 700.0 } else { -450.0 };
        }
        store
            .save_ratings(DEFAULT_POOL, stale.clone())
            .await
            .unwrap();
        let start = LastFit::from_stored(&store.ratings(DEFAULT_POOL).await.unwrap());
        assert_eq!(start.len(), stale.len());
        ratings.refit(DEFAULT_POOL).await.unwrap();
        stored_equal_a_fit_from_scratch(&store).await;
        // Catching up forgets the fit in memory and asks for a refit.
        ratings.catch_up();
        assert!(ratings.last.lock().unwrap().is_empty());
        assert!(ratings.refits.borrow().asked.contains(DEFAULT_POOL));
    }

    // fit_all_from agrees with fit_all from any start, and its estimates start the next.
    #[test]
    fn fits_from_a_start_equal_fits_from_scratch() {
        let results: Vec<RatedResult> = (0..200u64)
            .map(|n| {
                let (a, b) = (n % 60, (n * 13 + 5) % 60);
                let b = if a == b { (b + 1) % 60 } else { b };
                let re = ["B+R", "W+2.5", "0", "B+T"][(n * 31 % 4) as usize];
                rated_row(&format!("p{a}"), &format!("p{b}"), re)
            })
            .collect();
        let (first, last) = fit_all_from(&results[..150], None, &[]);
        assert_eq!(first, fit_all(&results[..150]));
        assert!(last.len() > EXACT_INTERVALS_UP_TO, "diagonal intervals");
        let (warm, _) = fit_all_from(&results, Some(&last), &[]);
        let cold = fit_all(&results);
        assert_eq!(warm.len(), cold.len());
        for (w, c) in warm.iter().zip(&cold) {
            assert_eq!((&w.name, w.games), (&c.name, c.games));
            assert!((w.rating - c.rating).abs() < 1e-3);
        }
    }
}
