//! Ratings: every account's Elo from every rated game (goref-tournament's joint fit, anchored
//! at a mean of [`BASE_RATING`]), refitted by the leading server when a rated game finishes
//! and stored, so that every server answers the same (`/api/players`, `/api/players/{name}`,
//! `/api/me`, the lobby's list and its pairing read the stored ratings).

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use goref_rules::Outcome;
use goref_tournament::pairing::Scored;
use goref_tournament::rating::{fit, Anchor, FitOptions, RatedGame};

use crate::bus::{BusEvent, GameEvent};
use crate::error::{ApiError, Missing};
use crate::games::{Follower, Games};
use crate::protocol::{check_name, MeAnswer, PlayerAnswer, PlayerLine, PlayerList, Rating};
use crate::sessions::account_of_request;

pub use crate::protocol::BASE_RATING;

fn key(name: &str) -> String {
    name.to_ascii_lowercase()
}

/// The result of a game as ratings count it, from SGF `RE` (goref's [`Outcome`]); `None` for
/// no result (`Void`) or a text that is no result.
#[must_use]
pub fn rated_result(re: &str) -> Option<Scored> {
    re.parse::<Outcome>()
        .ok()
        .filter(Outcome::is_decided)
        .map(Scored::from)
}

/// Every rating fitted from the rated results (Black, White, `RE`), best first.
#[must_use]
pub fn fit_all(results: &[(String, String, String)]) -> Vec<Rating> {
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut names: Vec<String> = Vec::new();
    let mut games = Vec::with_capacity(results.len());
    for (black, white, re) in results {
        let Some(result) = rated_result(re) else {
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
    let options = FitOptions {
        anchor: Anchor::Mean(BASE_RATING),
        ..FitOptions::default()
    };
    let Ok(fitted) = fit(names.len(), &games, &options) else {
        return Vec::new();
    };
    let ratings = names
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let mut r = Rating {
                name: name.clone(),
                rating: fitted.ratings[i],
                interval: fitted.intervals[i],
                games: 0,
                wins: 0,
                losses: 0,
                draws: 0,
            };
            for g in games.iter().filter(|g| g.black == i || g.white == i) {
                r.games += 1;
                let score = if g.black == i {
                    g.result.black_score()
                } else {
                    g.result.white_score()
                };
                match score {
                    s if s > 0.75 => r.wins += 1,
                    s if s < 0.25 => r.losses += 1,
                    _ => r.draws += 1,
                }
            }
            r
        })
        .collect();
    crate::store::best_first(ratings)
}

/// The ratings feature.
pub struct Ratings {
    games: Arc<Games>,
    /// One refit at a time (each reads every result stored before it).
    refitting: tokio::sync::Mutex<()>,
}

impl Ratings {
    /// The feature over the games service (its store, its bus, its leadership).
    #[must_use]
    pub fn new(games: Arc<Games>) -> Arc<Ratings> {
        Arc::new(Ratings {
            games,
            refitting: tokio::sync::Mutex::new(()),
        })
    }

    /// `GET /api/players`, `/api/players/{name}`, `/api/me`.
    pub fn routes(self: Arc<Ratings>) -> Router {
        Router::new()
            .route("/api/me", get(me))
            .route("/api/players", get(players))
            .route("/api/players/{name}", get(player))
            .with_state(self)
    }

    /// Refits every rating from the stored results and stores them; tells every server.
    ///
    /// # Errors
    ///
    /// The store failed (nothing changed).
    pub async fn refit(&self) -> Result<(), crate::store::StoreError> {
        let _one = self.refitting.lock().await;
        let store = self.games.store();
        let ratings = fit_all(&store.rated_results().await?);
        store.save_ratings(ratings).await?;
        self.games.bus().publish(BusEvent::Ratings).await;
        Ok(())
    }

    /// Listens to the bus until the server stops: when a rated game between accounts
    /// finishes, the leading server refits (and, on taking the lead, once, in case a result
    /// came while nobody led).
    pub async fn run(self: Arc<Ratings>) {
        self.games.follow(self.as_ref()).await;
    }

    /// What the ratings do with one event of the bus (the leader refits after a rated
    /// game's end).
    pub async fn on_event(&self, event: &BusEvent) {
        if let BusEvent::Game(GameEvent::Finished { config, result, .. }) = event {
            if config.rated
                && config.players.is_some()
                && rated_result(result).is_some()
                && self.games.leads()
            {
                self.refit_logged().await;
            }
        }
    }

    async fn refit_logged(&self) {
        if let Err(e) = self.refit().await {
            eprintln!("goref serve: ratings not refitted: {e:#}");
        }
    }

    /// The stored rating of account `name`.
    async fn of(&self, name: &str) -> Result<Option<Rating>, ApiError> {
        let all = self
            .games
            .store()
            .ratings()
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

/// `GET /api/players`: every account with its rating, rated players best first.
async fn players(State(ratings): State<Arc<Ratings>>) -> Result<Response, ApiError> {
    let store = ratings.games.store();
    let accounts = store.accounts().await.map_err(|e| ApiError::storage(&e))?;
    let standings = store.ratings().await.map_err(|e| ApiError::storage(&e))?;
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
    });
    let unrated = accounts
        .iter()
        .filter(|a| !standings.iter().any(|r| key(&r.name) == key(&a.name)))
        .map(|a| PlayerLine {
            name: a.name.clone(),
            program: a.program,
            rating: None,
            interval: None,
            games: 0,
            wins: None,
            losses: None,
            draws: None,
        });
    let players = rated.chain(unrated).collect();
    Ok(axum::Json(PlayerList { players }).into_response())
}

/// `GET /api/players/{name}`: the account, its rating and its games, newest first.
async fn player(
    State(ratings): State<Arc<Ratings>>,
    Path(name): Path<String>,
) -> Result<Response, ApiError> {
    if check_name(&name).is_err() {
        return Err(ApiError::NotFound(Missing::Player));
    }
    let store = ratings.games.store();
    let account = match store.account(&name).await {
        Ok(Some((a, _))) => a,
        Ok(None) => return Err(ApiError::NotFound(Missing::Player)),
        Err(e) => return Err(ApiError::storage(&e)),
    };
    let games = store
        .games_of(&name, 200)
        .await
        .map_err(|e| ApiError::storage(&e))?;
    let rating = ratings.of(&name).await?;
    Ok(axum::Json(PlayerAnswer {
        account,
        rating,
        games,
    })
    .into_response())
}

impl Follower for Ratings {
    fn on_event(&self, event: &BusEvent) -> impl std::future::Future<Output = ()> + Send {
        Ratings::on_event(self, event)
    }

    fn catch_up(&self) -> impl std::future::Future<Output = ()> + Send {
        self.refit_logged()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let results: Vec<(String, String, String)> = (0..6)
            .map(|i| {
                if i % 2 == 0 {
                    ("a".into(), "b".into(), "B+R".into())
                } else {
                    ("b".into(), "a".into(), "W+1.5".into())
                }
            })
            .collect();
        let s = fit_all(&results);
        assert_eq!(s.len(), 2);
        assert_eq!((s[0].name.as_str(), s[0].wins, s[0].losses), ("a", 6, 0));
        assert!(s[0].rating > s[1].rating + 100.0);
        assert!(((s[0].rating + s[1].rating) / 2.0 - BASE_RATING).abs() < 1e-6);
    }
}
