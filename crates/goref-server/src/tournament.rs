//! Tournaments on the server, run by a tournament director: the TD creates one (format,
//! rounds, the games' settings), players and programs join, the TD starts it, and the server
//! pairs each round when the last one ends, with goref-tournament's pairings ([`Plan`]) and
//! standings. The TD can decide a game, grant time, pass for a player in place of an illegal
//! move (001 §1, 3.10.2, 3.10.3), and withdraw a player; every action is stored, in the game's
//! record or the tournament's log.
//!
//! A tournament is stored whole, as JSON, after every change; its plan is rebuilt from the
//! results (the pairings are a function of them).

use std::collections::HashMap;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use goref_referee::Ending;
use goref_tournament::pairing::Pairing;
use goref_tournament::{Format, GameLine, Plan};
use serde::{Deserialize, Serialize};

use crate::error::{ApiError, Missing, TournamentConflict};
use crate::lobby::{account_of_request, start_game};
use crate::room::{Act, CreateRequest, Players, TdAction};
use crate::server::{act_as_server, now_ms, random_hex, AppState};
use crate::store::Store;

/// The most players of one tournament.
pub const MAX_PLAYERS: usize = 64;
/// The most tournaments not yet over.
pub const MAX_OPEN: usize = 100;

/// Where a tournament is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// Players join.
    Open,
    /// Rounds are played.
    Running,
    /// Every game is decided.
    Over,
}

/// The format as the API names it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "format", rename_all = "kebab-case")]
pub enum FormatSpec {
    RoundRobin {
        #[serde(default = "one")]
        games_per_pair: usize,
    },
    Gauntlet {
        #[serde(default = "one")]
        seeds: usize,
        #[serde(default = "one")]
        games_per_pair: usize,
    },
    Swiss {
        rounds: usize,
    },
    Knockout {
        #[serde(default = "one")]
        games: usize,
    },
}

fn one() -> usize {
    1
}

impl FormatSpec {
    fn format(&self) -> Format {
        match *self {
            FormatSpec::RoundRobin { games_per_pair } => Format::RoundRobin { games_per_pair },
            FormatSpec::Gauntlet {
                seeds,
                games_per_pair,
            } => Format::Gauntlet {
                seeds,
                games_per_pair,
            },
            FormatSpec::Swiss { rounds } => Format::Swiss { rounds },
            FormatSpec::Knockout { games } => Format::Knockout {
                games,
                max_replays: 1,
            },
        }
    }

    fn check(&self) -> Result<(), String> {
        let ok = match *self {
            FormatSpec::RoundRobin { games_per_pair } => (1..=10).contains(&games_per_pair),
            FormatSpec::Gauntlet {
                seeds,
                games_per_pair,
            } => seeds >= 1 && (1..=10).contains(&games_per_pair),
            FormatSpec::Swiss { rounds } => (1..=20).contains(&rounds),
            FormatSpec::Knockout { games } => (1..=9).contains(&games),
        };
        if ok {
            Ok(())
        } else {
            Err("games per pair 1-10, Swiss rounds 1-20, knockout games 1-9".into())
        }
    }
}

/// One game of a tournament.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TournamentGame {
    /// Its number in the plan, from 1.
    pub number: usize,
    /// Round, from 1.
    pub round: usize,
    /// Players (indices in `players`).
    pub black: usize,
    pub white: usize,
    /// The server's game, once started (none for a game forfeited before it began).
    pub id: Option<String>,
    /// SGF `RE`, once over.
    pub result: Option<String>,
}

/// One line of the TD's log.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LogLine {
    pub at_ms: u64,
    pub text: String,
}

/// A tournament as stored.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Tournament {
    pub id: String,
    pub name: String,
    pub td: String,
    pub created_ms: u64,
    #[serde(flatten)]
    pub format: FormatSpec,
    /// The settings of every game (players' names filled in).
    pub game: CreateRequest,
    pub stage: Stage,
    /// In seeding order once started.
    pub players: Vec<String>,
    pub withdrawn: Vec<bool>,
    pub games: Vec<TournamentGame>,
    pub log: Vec<LogLine>,
}

fn winner(result: &str) -> Option<char> {
    match result.chars().next()? {
        'B' | 'b' => Some('B'),
        'W' | 'w' => Some('W'),
        _ => None,
    }
}

impl Tournament {
    fn line(&self, g: &TournamentGame) -> GameLine {
        let pairing = Pairing {
            black: g.black,
            white: g.white,
            round: g.round.saturating_sub(1),
        };
        let result = g.result.clone().unwrap_or_default();
        GameLine::new(
            g.number,
            &pairing,
            [self.players[g.black].clone(), self.players[g.white].clone()],
            result.clone(),
            winner(&result),
            Ending::TwoPasses,
        )
    }

    /// Replays the plan over the results: the games of the batch not all decided yet (empty
    /// when the tournament is over), adding the batch's games to `games` when new.
    fn current_batch(&mut self) -> (Plan, Vec<usize>) {
        let mut plan = Plan::new(&self.format.format(), self.players.len());
        loop {
            let batch = plan.next_batch();
            if batch.is_empty() {
                return (plan, Vec::new());
            }
            for &(number, p) in &batch {
                if !self.games.iter().any(|g| g.number == number) {
                    self.games.push(TournamentGame {
                        number,
                        round: p.round + 1,
                        black: p.black,
                        white: p.white,
                        id: None,
                        result: None,
                    });
                }
            }
            let numbers: Vec<usize> = batch.iter().map(|&(n, _)| n).collect();
            let decided = numbers.iter().all(|n| {
                self.games
                    .iter()
                    .any(|g| g.number == *n && g.result.is_some())
            });
            if !decided {
                return (plan, numbers);
            }
            for n in numbers {
                let g = self.games.iter().find(|g| g.number == n).expect("added");
                plan.record(n, &self.line(g));
            }
        }
    }

    /// The standings (goref-tournament's, with Go's tie-breaks) and the byes.
    fn standings(&mut self) -> goref_tournament::standings::Standings {
        let (plan, _) = self.current_batch();
        let lines: Vec<GameLine> = self
            .games
            .iter()
            .filter(|g| g.result.is_some())
            .map(|g| self.line(g))
            .collect();
        goref_tournament::standings::standings(
            self.format.format().name(),
            &self.players,
            &lines,
            plan.byes(),
        )
    }

    fn log(&mut self, text: String) {
        self.log.push(LogLine {
            at_ms: now_ms(),
            text,
        });
    }

    fn index_of(&self, name: &str) -> Option<usize> {
        self.players
            .iter()
            .position(|p| p.eq_ignore_ascii_case(name))
    }
}

/// Every tournament, and which tournament game each server game is.
pub struct Tournaments {
    all: HashMap<String, Tournament>,
    by_game: HashMap<String, (String, usize)>,
}

impl Tournaments {
    /// The tournaments in `store`.
    ///
    /// # Errors
    ///
    /// A storage error, or a stored tournament that cannot be read.
    pub async fn load(store: &dyn Store) -> anyhow::Result<Tournaments> {
        let mut t = Tournaments {
            all: HashMap::new(),
            by_game: HashMap::new(),
        };
        for body in store.tournaments().await? {
            let tournament: Tournament = serde_json::from_str(&body)?;
            t.insert(tournament);
        }
        Ok(t)
    }

    fn insert(&mut self, t: Tournament) {
        for g in &t.games {
            if let Some(id) = &g.id {
                self.by_game.insert(id.clone(), (t.id.clone(), g.number));
            }
        }
        self.all.insert(t.id.clone(), t);
    }
}

async fn save(state: &Arc<AppState>, t: &Tournament) -> Result<(), ApiError> {
    let body = serde_json::to_string(t).expect("serialisable");
    state
        .store
        .save_tournament(&t.id, t.created_ms, body)
        .await
        .map_err(|e| ApiError::storage(&e))
}

fn malformed(e: &serde_json::Error) -> ApiError {
    ApiError::Malformed(e.to_string())
}

async fn require_td(state: &Arc<AppState>, headers: &HeaderMap) -> Result<String, ApiError> {
    let account = account_of_request(state, headers).await?;
    if account.td {
        Ok(account.name)
    } else {
        Err(ApiError::NotTd)
    }
}

/// A tournament in the list: `GET /api/tournaments`.
#[derive(Serialize)]
struct Summary<'a> {
    id: &'a str,
    name: &'a str,
    format: &'static str,
    state: Stage,
    /// How many.
    players: usize,
    /// The latest round started, 0 before the first.
    round: usize,
}

fn summary(t: &Tournament) -> Summary<'_> {
    Summary {
        id: &t.id,
        name: &t.name,
        format: t.format.format().name(),
        state: t.stage,
        players: t.players.len(),
        round: t
            .games
            .iter()
            .filter(|g| g.id.is_some() || g.result.is_some())
            .map(|g| g.round)
            .max()
            .unwrap_or(0),
    }
}

#[derive(Serialize)]
struct List<'a> {
    tournaments: Vec<Summary<'a>>,
}

/// One tournament: `GET /api/tournaments/{id}`.
#[derive(Serialize)]
struct Shown<'a> {
    id: &'a str,
    name: &'a str,
    format: &'static str,
    state: Stage,
    round: usize,
    td: &'a str,
    game: &'a CreateRequest,
    /// The players' names, in seeding order once started.
    players: &'a [String],
    withdrawn: &'a [bool],
    settings: &'a FormatSpec,
    games: Vec<ShownGame<'a>>,
    standings: goref_tournament::standings::Standings,
    log: &'a [LogLine],
}

/// One game of a tournament, its players by name.
#[derive(Serialize)]
struct ShownGame<'a> {
    number: usize,
    round: usize,
    id: Option<&'a str>,
    black: &'a str,
    white: &'a str,
    result: Option<&'a str>,
}

/// `GET /api/tournaments`.
pub(crate) async fn list(State(state): State<Arc<AppState>>) -> Response {
    let all = state.tournaments.lock().await;
    let mut list: Vec<&Tournament> = all.all.values().collect();
    list.sort_by(|a, b| b.created_ms.cmp(&a.created_ms).then(a.id.cmp(&b.id)));
    let tournaments = list.into_iter().map(summary).collect();
    axum::Json(List { tournaments }).into_response()
}

/// `GET /api/tournaments/{id}`: settings, players, games by round, standings and crosstable,
/// the TD's log.
pub(crate) async fn show(State(state): State<Arc<AppState>>, Path(id): Path<String>) -> Response {
    let mut all = state.tournaments.lock().await;
    let Some(t) = all.all.get_mut(&id) else {
        return ApiError::NotFound(Missing::Tournament).into_response();
    };
    let standings = t.standings();
    let t = &*t;
    let games = t
        .games
        .iter()
        .map(|g| ShownGame {
            number: g.number,
            round: g.round,
            id: g.id.as_deref(),
            black: &t.players[g.black],
            white: &t.players[g.white],
            result: g.result.as_deref(),
        })
        .collect();
    let Summary {
        id,
        name,
        format,
        state,
        round,
        ..
    } = summary(t);
    let shown = Shown {
        id,
        name,
        format,
        state,
        round,
        td: &t.td,
        game: &t.game,
        players: &t.players,
        withdrawn: &t.withdrawn,
        settings: &t.format,
        games,
        standings,
        log: &t.log,
    };
    axum::Json(shown).into_response()
}

/// (Flattened, so unknown fields cannot be refused: serde's `flatten` reads around them.)
#[derive(Deserialize)]
struct CreateTournament {
    name: String,
    #[serde(flatten)]
    format: FormatSpec,
    #[serde(default)]
    game: CreateRequest,
}

/// `POST /api/tournaments` (the TD): `{name, format, rounds | games_per_pair | seeds | games,
/// game: {settings}}`.
pub(crate) async fn create(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let td = require_td(&state, &headers).await?;
    let request: CreateTournament = serde_json::from_slice(&body).map_err(|e| malformed(&e))?;
    let name = request.name.trim().to_string();
    if name.is_empty() || name.chars().count() > 80 || name.chars().any(char::is_control) {
        return Err(ApiError::Invalid("a name of 1 to 80 characters".into()));
    }
    request.format.check().map_err(ApiError::Invalid)?;
    if request.game.black.is_some() || request.game.white.is_some() {
        return Err(ApiError::Invalid("the players are the tournament's".into()));
    }
    request.game.config().map_err(ApiError::Invalid)?;
    let mut all = state.tournaments.lock().await;
    if all.all.values().filter(|t| t.stage != Stage::Over).count() >= MAX_OPEN {
        return Err(ApiError::TooManyTournaments);
    }
    let mut t = Tournament {
        id: random_hex(5),
        name,
        td: td.clone(),
        created_ms: now_ms(),
        format: request.format,
        game: request.game,
        stage: Stage::Open,
        players: Vec::new(),
        withdrawn: Vec::new(),
        games: Vec::new(),
        log: Vec::new(),
    };
    t.log(format!("created by the TD ({td})"));
    save(&state, &t).await?;
    let id = t.id.clone();
    all.insert(t);
    #[derive(Serialize)]
    struct Made {
        id: String,
    }
    Ok((StatusCode::CREATED, axum::Json(Made { id })).into_response())
}

/// Tournament `id`, still open to players (404 or 409 otherwise).
fn open_one<'a>(all: &'a mut Tournaments, id: &str) -> Result<&'a mut Tournament, ApiError> {
    let t = all
        .all
        .get_mut(id)
        .ok_or(ApiError::NotFound(Missing::Tournament))?;
    if t.stage == Stage::Open {
        Ok(t)
    } else {
        Err(ApiError::Tournament(TournamentConflict::Started))
    }
}

/// `POST /api/tournaments/{id}/join`: the logged-in player joins an open tournament.
pub(crate) async fn join(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let account = account_of_request(&state, &headers).await?;
    let mut all = state.tournaments.lock().await;
    let t = open_one(&mut all, &id)?;
    if t.index_of(&account.name).is_none() {
        if t.players.len() >= MAX_PLAYERS {
            return Err(ApiError::Tournament(TournamentConflict::Full));
        }
        t.players.push(account.name.clone());
        t.withdrawn.push(false);
        t.log(format!("{} joins", account.name));
        save(&state, t).await?;
    }
    #[derive(Serialize)]
    struct Joined<'a> {
        joined: &'a str,
        players: &'a [String],
    }
    let joined = Joined {
        joined: &id,
        players: &t.players,
    };
    Ok(axum::Json(joined).into_response())
}

/// `POST /api/tournaments/{id}/start` (the TD): seeds the players by rating and starts round 1.
pub(crate) async fn start(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let td = require_td(&state, &headers).await?;
    {
        let mut all = state.tournaments.lock().await;
        let t = open_one(&mut all, &id)?;
        if t.players.len() < 2 {
            return Err(ApiError::Tournament(TournamentConflict::TooFew));
        }
        // Seeding: by rating, best first; equal ratings keep the order of joining.
        let ratings = state.lobby.lock().expect("lobby").standings();
        let rating = |name: &String| {
            ratings
                .iter()
                .find(|r| r.name.eq_ignore_ascii_case(name))
                .map_or(crate::lobby::BASE_RATING, |r| r.rating)
        };
        t.players.sort_by(|a, b| rating(b).total_cmp(&rating(a)));
        t.stage = Stage::Running;
        let seeding = t.players.join(", ");
        t.log(format!("started by the TD ({td}); seeding: {seeding}"));
        save(&state, t).await?;
    }
    advance(&state, &id).await;
    Ok(show(State(state), Path(id)).await)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Withdraw {
    player: String,
    #[serde(default)]
    reason: String,
}

/// `POST /api/tournaments/{id}/withdraw` (the TD): `{player, reason}`. The player's game in
/// progress is decided against it; its later games are forfeited.
pub(crate) async fn withdraw(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let td = require_td(&state, &headers).await?;
    let request: Withdraw = serde_json::from_slice(&body).map_err(|e| malformed(&e))?;
    let live: Vec<(String, char)> = {
        let mut all = state.tournaments.lock().await;
        let Some(t) = all.all.get_mut(&id) else {
            return Err(ApiError::NotFound(Missing::Tournament));
        };
        let Some(k) = t.index_of(&request.player) else {
            return Err(ApiError::NotFound(Missing::TournamentPlayer));
        };
        if t.withdrawn[k] {
            return Err(ApiError::Tournament(TournamentConflict::Withdrawn));
        }
        t.withdrawn[k] = true;
        let name = t.players[k].clone();
        t.log(format!(
            "the TD ({td}) withdraws {name}: {}",
            request.reason
        ));
        save(&state, t).await?;
        t.games
            .iter()
            .filter(|g| g.result.is_none() && (g.black == k || g.white == k))
            .filter_map(|g| {
                let id = g.id.clone()?;
                Some((id, if g.black == k { 'W' } else { 'B' }))
            })
            .collect()
    };
    for (game, winner) in live {
        let act = Act::Td {
            td: td.clone(),
            action: TdAction::Result {
                result: format!("{winner}+F"),
                reason: format!("{} withdrawn", request.player),
            },
        };
        // A game that ended meanwhile keeps its result.
        let _ = act_as_server(&state, &game, act).await;
    }
    advance(&state, &id).await;
    Ok(show(State(state), Path(id)).await)
}

/// `POST /api/games/{id}/td` (the TD): a [`TdAction`] on a game.
pub(crate) async fn td_act(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let td = require_td(&state, &headers).await?;
    let action: TdAction = serde_json::from_slice(&body).map_err(|e| malformed(&e))?;
    let version = act_as_server(&state, &id, Act::Td { td, action }).await?;
    #[derive(Serialize)]
    struct Acted {
        version: u64,
    }
    Ok(axum::Json(Acted { version }).into_response())
}

/// A server game ended: if it is a tournament's, record it and go on.
pub(crate) fn game_over(state: &Arc<AppState>, game: &str, result: &str) {
    let state = state.clone();
    let game = game.to_string();
    let result = result.to_string();
    tokio::spawn(async move {
        let tid = {
            let mut all = state.tournaments.lock().await;
            let Some((tid, number)) = all.by_game.get(&game).cloned() else {
                return;
            };
            let Some(t) = all.all.get_mut(&tid) else {
                return;
            };
            if let Some(g) = t.games.iter_mut().find(|g| g.number == number) {
                g.result = Some(result);
            }
            if save(&state, t).await.is_err() {
                eprintln!("goref serve: tournament {tid}: result of {game} not stored");
            }
            tid
        };
        advance(&state, &tid).await;
    });
}

/// Starts what can start: the next round's games when the last round is over (forfeits for
/// withdrawn players recorded at once), or ends the tournament. Holds the tournaments' lock
/// throughout, so that a game that ends at once is already known as the tournament's.
async fn advance(state: &Arc<AppState>, id: &str) {
    let mut guard = state.tournaments.lock().await;
    let Tournaments { all, by_game } = &mut *guard;
    let Some(t) = all.get_mut(id) else { return };
    while t.stage == Stage::Running {
        let (_, batch) = t.current_batch();
        if batch.is_empty() {
            t.stage = Stage::Over;
            t.log("over".into());
            break;
        }
        let open: Vec<&TournamentGame> = t
            .games
            .iter()
            .filter(|g| batch.contains(&g.number) && g.result.is_none())
            .collect();
        // Still playing: wait for the round to end.
        if open.iter().any(|g| g.id.is_some()) {
            break;
        }
        let round = open.iter().map(|g| g.round).min().expect("not all decided");
        let mut to_start = Vec::new();
        let mut forfeits = false;
        for g in &mut t.games {
            if !batch.contains(&g.number) || g.result.is_some() || g.round != round {
                continue;
            }
            match (t.withdrawn[g.black], t.withdrawn[g.white]) {
                (false, false) => to_start.push((
                    g.number,
                    Players {
                        black: t.players[g.black].clone(),
                        white: t.players[g.white].clone(),
                    },
                )),
                (true, false) => g.result = Some("W+F".into()),
                (false, true) => g.result = Some("B+F".into()),
                (true, true) => g.result = Some("0".into()),
            }
            forfeits |= g.result.is_some();
        }
        if forfeits {
            t.log(format!(
                "round {round}: the games of withdrawn players are forfeited"
            ));
        }
        if to_start.is_empty() {
            continue;
        }
        let settings = t.game.clone();
        for (number, players) in to_start {
            let creator = format!("tournament:{id}");
            match start_game(state, &settings, players, true, &creator).await {
                Ok(game) => {
                    by_game.insert(game.clone(), (id.to_string(), number));
                    if let Some(g) = t.games.iter_mut().find(|g| g.number == number) {
                        g.id = Some(game);
                    }
                }
                Err(e) => {
                    // Not startable (should not happen: the settings were checked): recorded
                    // as a draw so that the tournament can go on.
                    t.log(format!(
                        "game {number} could not start ({e}): scored as a draw"
                    ));
                    if let Some(g) = t.games.iter_mut().find(|g| g.number == number) {
                        g.result = Some("0".into());
                    }
                }
            }
        }
        break;
    }
    if let Err(e) = save(state, t).await {
        eprintln!("goref serve: tournament {id}: not stored: {e:?}");
    }
}
