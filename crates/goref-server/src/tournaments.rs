//! Tournaments on the server, run by a tournament director: the TD creates one (format,
//! rounds, the games' settings), players and programs join, the TD starts it, and the server
//! pairs each round when the last one ends, with goref-tournament's pairings ([`Plan`]) and
//! standings. The TD can decide a game, grant time, pass for a player in place of an illegal
//! move (001 §1, 3.10.2, 3.10.3), and withdraw a player; every action is stored, in the game's
//! record or the tournament's log.
//!
//! A tournament is stored whole, as JSON, after every change; its plan is rebuilt from the
//! results (the pairings are a function of them). Servers sharing a database change one by
//! compare-and-swap: a change is stored only over the body it was made from, else it is made
//! again from a fresh read ([`Tournaments::update`]). Only the leading server advances a
//! tournament (opens its games); a change made on another server is published on the bus,
//! and the leader advances on it.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use goref_referee::Ending;
use goref_rules::{Color, Outcome, WinBy};
use goref_tournament::pairing::{Pairing, Round};
use goref_tournament::{Format, GameLine, Plan};
use serde::{Deserialize, Serialize};

use axum::routing::{get, post};
use axum::Router;

use crate::bus::{BusEvent, GameEvent};
use crate::error::{ApiError, Missing, TournamentConflict};
use crate::games::{Follower, Games};
use crate::room::{Act, CreateRequest, Players, TdAction};
use crate::sessions::{account_of_request, random_hex};
use crate::store::Store;

/// The most players of one tournament.
pub const MAX_PLAYERS: usize = 64;
/// The most tournaments not yet over.
pub const MAX_OPEN: usize = 100;
/// How many times a change is made again from a fresh read when another server's change
/// came first.
const TRIES: usize = 8;

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

/// A tournament's [`Format`] as the store keeps it, flattened into the tournament: as
/// [`Format`]'s serde form, except a knockout's `games` (the games of a match), written
/// `match_games` so that it does not meet the tournament's own `games` (its list of games).
mod stored_format {
    use goref_tournament::Format;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use serde_json::{Map, Value};

    const WIRE: &str = "games";
    const STORED: &str = "match_games";

    pub fn serialize<S: Serializer>(format: &Format, s: S) -> Result<S::Ok, S::Error> {
        let mut map = match serde_json::to_value(format).map_err(serde::ser::Error::custom)? {
            Value::Object(map) => map,
            _ => return Err(serde::ser::Error::custom("a format is a map")),
        };
        if matches!(format, Format::Knockout { .. }) {
            if let Some(games) = map.remove(WIRE) {
                map.insert(STORED.to_string(), games);
            }
        }
        map.serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Format, D::Error> {
        let mut map = Map::deserialize(d)?;
        if let Some(games) = map.remove(STORED) {
            map.insert(WIRE.to_string(), games);
        }
        Format::deserialize(Value::Object(map)).map_err(serde::de::Error::custom)
    }
}

/// Whether the server runs a tournament of `format`: 1 to 10 games a pair, 1 to 20 Swiss
/// rounds, knockout matches of 1 to 9 games with at most 5 replay blocks.
fn allowed(format: &Format) -> bool {
    match *format {
        Format::RoundRobin { games_per_pair } => (1..=10).contains(&games_per_pair),
        Format::Gauntlet {
            seeds,
            games_per_pair,
        } => seeds >= 1 && (1..=10).contains(&games_per_pair),
        Format::Swiss { rounds } => (1..=20).contains(&rounds),
        Format::Knockout { games, max_replays } => (1..=9).contains(&games) && max_replays <= 5,
    }
}

/// One game of a tournament.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TournamentGame {
    /// Its number in the plan, from 1.
    pub number: usize,
    /// The round (stored as its number, from 1).
    pub round: Round,
    /// Black (an index in `players`).
    pub black: usize,
    /// White (an index in `players`).
    pub white: usize,
    /// The server's game, once started (none for a game forfeited before it began).
    pub id: Option<String>,
    /// SGF `RE`, once over.
    pub result: Option<String>,
}

/// One line of the TD's log.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LogLine {
    /// When (unix ms).
    pub at_ms: u64,
    /// What happened.
    pub text: String,
}

/// A tournament as stored.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Tournament {
    /// Its id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// The tournament director's account.
    pub td: String,
    /// When it was created (unix ms).
    pub created_ms: u64,
    /// Its format, stored flattened beside the other fields (`"format": "swiss", "rounds": 5`);
    /// a knockout's count of games as `match_games`, which the list of `games` cannot take
    /// (see [`stored_format`]). A knockout stored without `max_replays` has 1, as the server
    /// then played.
    #[serde(flatten, with = "stored_format")]
    pub format: Format,
    /// The settings of every game (players' names filled in).
    pub game: CreateRequest,
    /// Where it stands.
    pub stage: Stage,
    /// The players' accounts, in seeding order once started.
    pub players: Vec<String>,
    /// Whether each player has withdrawn.
    pub withdrawn: Vec<bool>,
    /// Its games, once paired.
    pub games: Vec<TournamentGame>,
    /// The director's log.
    pub log: Vec<LogLine>,
}

/// A forfeit win for `winner`, in `RE` form (SGF `B+F`/`W+F`).
fn forfeit(winner: Color) -> String {
    Outcome::win(winner, WinBy::Forfeit).to_sgf()
}

/// A draw, in `RE` form (`0`).
fn draw() -> String {
    Outcome::Draw.to_sgf()
}

impl Tournament {
    fn line(&self, g: &TournamentGame) -> GameLine {
        let pairing = Pairing {
            black: g.black,
            white: g.white,
            round: g.round,
        };
        // A game without a result, or with one that does not read, counts as void.
        let result = g
            .result
            .as_deref()
            .and_then(|re| re.parse::<Outcome>().ok())
            .unwrap_or(Outcome::Void);
        GameLine::of(
            g.number,
            &pairing,
            [self.players[g.black].clone(), self.players[g.white].clone()],
            result,
            Ending::TwoPasses,
        )
    }

    /// Replays the plan over the results: the games of the batch not all decided yet (empty
    /// when the tournament is over), adding the batch's games to `games` when new.
    fn current_batch(&mut self) -> (Plan, Vec<usize>) {
        let mut plan = Plan::new(&self.format, self.players.len());
        loop {
            let batch = plan.next_batch();
            if batch.is_empty() {
                return (plan, Vec::new());
            }
            for &(number, p) in &batch {
                if !self.games.iter().any(|g| g.number == number) {
                    self.games.push(TournamentGame {
                        number,
                        round: p.round,
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
            self.format.name(),
            &self.players,
            &lines,
            plan.byes(),
        )
    }

    fn index_of(&self, name: &str) -> Option<usize> {
        self.players
            .iter()
            .position(|p| p.eq_ignore_ascii_case(name))
    }
}

/// The tournaments feature: its state is the store's (every server reads the same); the
/// leading server advances them as their games finish.
pub struct Tournaments {
    games: Arc<Games>,
    /// One change at a time on this server (each reads, changes and stores a tournament).
    changing: tokio::sync::Mutex<()>,
}

impl Tournaments {
    /// The feature over the games service.
    #[must_use]
    pub fn new(games: Arc<Games>) -> Arc<Tournaments> {
        Arc::new(Tournaments {
            games,
            changing: tokio::sync::Mutex::new(()),
        })
    }

    /// The routes: the list, one, creating, joining, starting, withdrawing, and the TD's
    /// actions on a game.
    pub fn routes(self: Arc<Tournaments>) -> Router {
        Router::new()
            .route("/api/games/{id}/td", post(td_act))
            .route("/api/tournaments", get(list).post(create))
            .route("/api/tournaments/{id}", get(show))
            .route("/api/tournaments/{id}/join", post(join))
            .route("/api/tournaments/{id}/start", post(start))
            .route("/api/tournaments/{id}/withdraw", post(withdraw))
            .with_state(self)
    }

    fn store(&self) -> &Arc<dyn Store> {
        self.games.store()
    }

    /// Every tournament with the body it was read from, oldest first.
    async fn all_read(&self) -> Result<Vec<(Tournament, String)>, ApiError> {
        let bodies = self
            .store()
            .tournaments()
            .await
            .map_err(|e| ApiError::storage(&e))?;
        bodies
            .into_iter()
            .map(|b| match serde_json::from_str(&b) {
                Ok(t) => Ok((t, b)),
                Err(e) => Err(ApiError::storage(&e)),
            })
            .collect()
    }

    /// Every tournament, oldest first.
    async fn all(&self) -> Result<Vec<Tournament>, ApiError> {
        Ok(self.all_read().await?.into_iter().map(|(t, _)| t).collect())
    }

    /// Tournament `id` and the body it was read from (404 when none).
    async fn read(&self, id: &str) -> Result<(Tournament, String), ApiError> {
        self.all_read()
            .await?
            .into_iter()
            .find(|(t, _)| t.id == id)
            .ok_or(ApiError::NotFound(Missing::Tournament))
    }

    /// Tournament `id` (404 when none).
    async fn one(&self, id: &str) -> Result<Tournament, ApiError> {
        Ok(self.read(id).await?.0)
    }

    /// Stores `t` if the stored body is still `previous` (`None`: a new tournament), and
    /// publishes the change; `false` when another change came first (nothing stored).
    async fn save(&self, t: &Tournament, previous: Option<String>) -> Result<bool, ApiError> {
        let body = serde_json::to_string(t).expect("serialisable");
        let stored = self
            .store()
            .save_tournament(&t.id, t.created_ms, body, previous)
            .await
            .map_err(|e| ApiError::storage(&e))?;
        if stored {
            self.games
                .bus()
                .publish(BusEvent::Tournament { id: t.id.clone() })
                .await;
        }
        Ok(stored)
    }

    /// A read-modify-write of tournament `id`: `edit` changes a fresh read, stored only over
    /// the body read; when another change (another server's) came between, made again from a
    /// new read, up to [`TRIES`] times (then 409 `changed`). Nothing is stored when `edit`
    /// fails or changes nothing. Answers the tournament as stored and what `edit` answered.
    async fn update<R>(
        &self,
        id: &str,
        mut edit: impl FnMut(&mut Tournament) -> Result<R, ApiError> + Send,
    ) -> Result<(Tournament, R), ApiError> {
        let _one = self.changing.lock().await;
        for _ in 0..TRIES {
            let (mut t, before) = self.read(id).await?;
            let answer = edit(&mut t)?;
            if serde_json::to_string(&t).expect("serialisable") == before
                || self.save(&t, Some(before)).await?
            {
                return Ok((t, answer));
            }
        }
        Err(ApiError::Tournament(TournamentConflict::Changed))
    }

    fn log(&self, t: &mut Tournament, text: String) {
        t.log.push(LogLine {
            at_ms: self.games.now_ms(),
            text,
        });
    }

    /// Listens to the bus until the server stops: the leading server records each finished
    /// tournament game and goes on; on taking the lead (or at start) it catches up with
    /// games that finished while nobody led.
    pub async fn run(self: Arc<Tournaments>) {
        self.games.follow(self.as_ref()).await;
    }

    /// What tournaments do with one event of the bus: the leader records a tournament game's
    /// result and starts what can start.
    /// A tournament changed (on any server: a TD's action) is advanced by the leader.
    pub async fn on_event(&self, event: &BusEvent) {
        if !self.games.leads() {
            return;
        }
        match event {
            BusEvent::Game(GameEvent::Finished { id, result, .. }) => {
                if let Err(e) = self.record(id, &result.to_sgf()).await {
                    eprintln!("goref serve: tournament result of {id} not recorded: {e:?}");
                }
            }
            BusEvent::Tournament { id } => self.advance(id).await,
            _ => {}
        }
    }

    /// Records `result` for server game `game` if it is a tournament's, and goes on.
    /// (A game's first result stays; any server may record one.)
    async fn record(&self, game: &str, result: &str) -> Result<(), ApiError> {
        let Some(tid) = self
            .all()
            .await?
            .into_iter()
            .find(|t| t.games.iter().any(|g| g.id.as_deref() == Some(game)))
            .map(|t| t.id)
        else {
            return Ok(());
        };
        self.update(&tid, |t| {
            if let Some(g) = t
                .games
                .iter_mut()
                .find(|g| g.id.as_deref() == Some(game) && g.result.is_none())
            {
                g.result = Some(result.to_string());
            }
            Ok(())
        })
        .await?;
        self.advance(&tid).await;
        Ok(())
    }

    /// The leader's catching up: every running tournament's games that finished (read from
    /// the store) are recorded, and each goes on.
    async fn catch_up(&self) {
        let Ok(all) = self.all().await else { return };
        for t in all.iter().filter(|t| t.stage == Stage::Running) {
            for g in t.games.iter().filter(|g| g.result.is_none()) {
                let Some(id) = &g.id else { continue };
                if let Ok(Some(result)) = self.games.result(id).await {
                    let _ = self.record(id, &result.to_sgf()).await;
                }
            }
            self.advance(&t.id).await;
        }
    }

    /// Starts what can start: the next round's games when the last round is over (forfeits
    /// for withdrawn players recorded at once), or ends the tournament. Only the leading
    /// server advances (elsewhere this does nothing: the leader advances on the bus's news).
    async fn advance(&self, id: &str) {
        if !self.games.leads() {
            return;
        }
        let _one = self.changing.lock().await;
        // Games opened by an attempt whose store lost to another change: the next attempt
        // takes them instead of opening others.
        let mut opened: Vec<(usize, String)> = Vec::new();
        for _ in 0..TRIES {
            let Ok((mut t, before)) = self.read(id).await else {
                return;
            };
            let decide = self.step(&mut t, &mut opened).await;
            if serde_json::to_string(&t).expect("serialisable") == before {
                return;
            }
            match self.save(&t, Some(before)).await {
                Ok(true) => {
                    for (game, result) in decide {
                        let act = Act::Td {
                            td: t.td.clone(),
                            action: TdAction::Result {
                                result,
                                reason: "a player was withdrawn".into(),
                            },
                        };
                        let _ = self.games.act_as_server(&game, act).await;
                    }
                    return;
                }
                Ok(false) => {}
                Err(e) => {
                    eprintln!("goref serve: tournament {id}: not stored: {e:?}");
                    return;
                }
            }
        }
        eprintln!("goref serve: tournament {id}: not advanced: it kept changing meanwhile");
    }

    /// One attempt of [`Tournaments::advance`] on `t` as read; games in `opened` are taken
    /// rather than opened again. Answers the games opened before a player of theirs was
    /// withdrawn, with the result to decide them by.
    async fn step(
        &self,
        t: &mut Tournament,
        opened: &mut Vec<(usize, String)>,
    ) -> Vec<(String, String)> {
        let id = t.id.clone();
        let taken = |number: usize, opened: &[(usize, String)]| {
            opened
                .iter()
                .find(|(n, _)| *n == number)
                .map(|(_, game)| game.clone())
        };
        let mut decide = Vec::new();
        while t.stage == Stage::Running {
            let (_, batch) = t.current_batch();
            if batch.is_empty() {
                t.stage = Stage::Over;
                self.log(t, "over".into());
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
                    (true, false) => g.result = Some(forfeit(Color::White)),
                    (false, true) => g.result = Some(forfeit(Color::Black)),
                    (true, true) => g.result = Some(draw()),
                }
                if let (Some(result), Some(game)) = (&g.result, taken(g.number, opened)) {
                    // Opened, then a player was withdrawn: the game is decided so.
                    g.id = Some(game.clone());
                    decide.push((game, result.clone()));
                }
                forfeits |= g.result.is_some();
            }
            if forfeits {
                self.log(
                    t,
                    format!("round {round}: the games of withdrawn players are forfeited"),
                );
            }
            if to_start.is_empty() {
                continue;
            }
            let settings = t.game.clone();
            for (number, players) in to_start {
                if let Some(game) = taken(number, opened) {
                    if let Some(g) = t.games.iter_mut().find(|g| g.number == number) {
                        g.id = Some(game);
                    }
                    continue;
                }
                let creator = format!("tournament:{id}");
                // Under an id of its own: a leader that takes over from one that died
                // while opening the round takes the games it opened (no orphan, none twice).
                let made = match settings.config_between(&players, true) {
                    Ok(config) => self
                        .games
                        .open_once(&game_id(&id, number), config, creator)
                        .await
                        .map_err(|e| e.to_string()),
                    Err(e) => Err(e.to_string()),
                };
                match made {
                    Ok(game) => {
                        opened.push((number, game.clone()));
                        if let Some(g) = t.games.iter_mut().find(|g| g.number == number) {
                            g.id = Some(game);
                        }
                    }
                    Err(e) => {
                        // Not startable (should not happen: the settings were checked):
                        // recorded as a draw so that the tournament can go on.
                        self.log(
                            t,
                            format!("game {number} could not start ({e}): scored as a draw"),
                        );
                        if let Some(g) = t.games.iter_mut().find(|g| g.number == number) {
                            g.result = Some(draw());
                        }
                    }
                }
            }
            break;
        }
        decide
    }
}

/// The id of game `number` of tournament `tournament`: the same whichever server opens it.
fn game_id(tournament: &str, number: usize) -> String {
    crate::sessions::hash_secret(&format!("tournament {tournament} game {number}"))[..12]
        .to_string()
}

fn malformed(e: &serde_json::Error) -> ApiError {
    ApiError::Malformed(e.to_string())
}

async fn require_td(t: &Tournaments, headers: &HeaderMap) -> Result<String, ApiError> {
    let account = account_of_request(t.store().as_ref(), headers).await?;
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
        format: t.format.name(),
        state: t.stage,
        players: t.players.len(),
        round: t
            .games
            .iter()
            .filter(|g| g.id.is_some() || g.result.is_some())
            .map(|g| g.round.number())
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
    settings: &'a Format,
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
async fn list(State(ts): State<Arc<Tournaments>>) -> Result<Response, ApiError> {
    let mut all = ts.all().await?;
    all.sort_by(|a, b| b.created_ms.cmp(&a.created_ms).then(a.id.cmp(&b.id)));
    let tournaments = all.iter().map(summary).collect();
    Ok(axum::Json(List { tournaments }).into_response())
}

/// `GET /api/tournaments/{id}`: settings, players, games by round, standings and crosstable,
/// the TD's log.
async fn show(State(ts): State<Arc<Tournaments>>, Path(id): Path<String>) -> Response {
    match ts.one(&id).await {
        Ok(t) => shown(t),
        Err(e) => e.into_response(),
    }
}

fn shown(mut t: Tournament) -> Response {
    let standings = t.standings();
    let t = &t;
    let games = t
        .games
        .iter()
        .map(|g| ShownGame {
            number: g.number,
            round: g.round.number(),
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
    format: Format,
    #[serde(default)]
    game: CreateRequest,
}

/// `POST /api/tournaments` (the TD): `{name, format, rounds | games_per_pair | seeds |
/// games [, max_replays], game: {settings}}` (the format as [`Format`] reads it).
async fn create(
    State(ts): State<Arc<Tournaments>>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let td = require_td(&ts, &headers).await?;
    let request: CreateTournament = serde_json::from_slice(&body).map_err(|e| malformed(&e))?;
    let name = request.name.trim().to_string();
    if name.is_empty() || name.chars().count() > 80 || name.chars().any(char::is_control) {
        return Err(ApiError::Invalid("a name of 1 to 80 characters".into()));
    }
    if !allowed(&request.format) {
        return Err(ApiError::Invalid(
            "games per pair 1-10, Swiss rounds 1-20, knockout games 1-9 and replays 0-5".into(),
        ));
    }
    if request.game.black.is_some() || request.game.white.is_some() {
        return Err(ApiError::Invalid("the players are the tournament's".into()));
    }
    request
        .game
        .config()
        .and_then(|c| ts.games.accepts(&c))
        .map_err(|e| ApiError::Invalid(e.to_string()))?;
    let _one = ts.changing.lock().await;
    let all = ts.all().await?;
    if all.iter().filter(|t| t.stage != Stage::Over).count() >= MAX_OPEN {
        return Err(ApiError::TooManyTournaments);
    }
    let mut t = Tournament {
        id: random_hex(5),
        name,
        td: td.clone(),
        created_ms: ts.games.now_ms(),
        format: request.format,
        game: request.game,
        stage: Stage::Open,
        players: Vec::new(),
        withdrawn: Vec::new(),
        games: Vec::new(),
        log: Vec::new(),
    };
    ts.log(&mut t, format!("created by the TD ({td})"));
    if !ts.save(&t, None).await? {
        // Its random id was taken meanwhile.
        return Err(ApiError::Tournament(TournamentConflict::Changed));
    }
    #[derive(Serialize)]
    struct Made {
        id: String,
    }
    Ok((StatusCode::CREATED, axum::Json(Made { id: t.id })).into_response())
}

/// Tournament `t`, still open to players (409 otherwise).
fn still_open(t: &Tournament) -> Result<(), ApiError> {
    if t.stage == Stage::Open {
        Ok(())
    } else {
        Err(ApiError::Tournament(TournamentConflict::Started))
    }
}

/// `POST /api/tournaments/{id}/join`: the logged-in player joins an open tournament.
async fn join(
    State(ts): State<Arc<Tournaments>>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let account = account_of_request(ts.store().as_ref(), &headers).await?;
    let (t, ()) = ts
        .update(&id, |t| {
            still_open(t)?;
            if t.index_of(&account.name).is_none() {
                if t.players.len() >= MAX_PLAYERS {
                    return Err(ApiError::Tournament(TournamentConflict::Full));
                }
                t.players.push(account.name.clone());
                t.withdrawn.push(false);
                ts.log(t, format!("{} joins", account.name));
            }
            Ok(())
        })
        .await?;
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
async fn start(
    State(ts): State<Arc<Tournaments>>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let td = require_td(&ts, &headers).await?;
    // Seeding: by rating, best first; equal ratings keep the order of joining.
    let ratings = ts
        .store()
        .ratings(crate::wire::DEFAULT_POOL)
        .await
        .map_err(|e| ApiError::storage(&e))?;
    let rating = |name: &String| {
        ratings
            .iter()
            .find(|r| r.name.eq_ignore_ascii_case(name))
            .map_or(crate::wire::BASE_RATING, |r| r.rating)
    };
    ts.update(&id, |t| {
        still_open(t)?;
        if t.players.len() < 2 {
            return Err(ApiError::Tournament(TournamentConflict::TooFew));
        }
        t.players.sort_by(|a, b| rating(b).total_cmp(&rating(a)));
        t.stage = Stage::Running;
        let seeding = t.players.join(", ");
        ts.log(t, format!("started by the TD ({td}); seeding: {seeding}"));
        Ok(())
    })
    .await?;
    // Round 1 is opened here when this server leads, else by the leader on the bus's news.
    ts.advance(&id).await;
    Ok(show(State(ts), Path(id)).await)
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
async fn withdraw(
    State(ts): State<Arc<Tournaments>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let td = require_td(&ts, &headers).await?;
    let request: Withdraw = serde_json::from_slice(&body).map_err(|e| malformed(&e))?;
    let (_, live) = ts
        .update(&id, |t| {
            let Some(k) = t.index_of(&request.player) else {
                return Err(ApiError::NotFound(Missing::TournamentPlayer));
            };
            if t.withdrawn[k] {
                return Err(ApiError::Tournament(TournamentConflict::Withdrawn));
            }
            t.withdrawn[k] = true;
            let name = t.players[k].clone();
            ts.log(
                t,
                format!("the TD ({td}) withdraws {name}: {}", request.reason),
            );
            let live: Vec<(String, Color)> = t
                .games
                .iter()
                .filter(|g| g.result.is_none() && (g.black == k || g.white == k))
                .filter_map(|g| {
                    let id = g.id.clone()?;
                    let winner = if g.black == k {
                        Color::White
                    } else {
                        Color::Black
                    };
                    Some((id, winner))
                })
                .collect();
            Ok(live)
        })
        .await?;
    for (game, winner) in live {
        let act = Act::Td {
            td: td.clone(),
            action: TdAction::Result {
                result: forfeit(winner),
                reason: format!("{} withdrawn", request.player),
            },
        };
        // A game that ended meanwhile keeps its result. Its end is recorded by the leader
        // from the bus; recorded here too, so that the answer shows it.
        if ts.games.act_as_server(&game, act).await.is_ok() {
            if let Ok(Some(result)) = ts.games.result(&game).await {
                let _ = ts.record(&game, &result.to_sgf()).await;
            }
        }
    }
    ts.advance(&id).await;
    Ok(show(State(ts), Path(id)).await)
}

/// `POST /api/games/{id}/td` (the TD): a [`TdAction`] on a game.
async fn td_act(
    State(ts): State<Arc<Tournaments>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let td = require_td(&ts, &headers).await?;
    let action: TdAction = serde_json::from_slice(&body).map_err(|e| malformed(&e))?;
    let version = ts.games.act_as_server(&id, Act::Td { td, action }).await?;
    #[derive(Serialize)]
    struct Acted {
        version: u64,
    }
    Ok(axum::Json(Acted { version }).into_response())
}

impl Follower for Tournaments {
    fn on_event(&self, event: &BusEvent) -> impl std::future::Future<Output = ()> + Send {
        Tournaments::on_event(self, event)
    }

    fn catch_up(&self) -> impl std::future::Future<Output = ()> + Send {
        Tournaments::catch_up(self)
    }
}

#[cfg(test)]
mod tests {
    //! Tournaments driven by bus events, on tokio's paused clock: no sockets, no sleeps.
    use super::*;
    use crate::app::App;
    use crate::clock::Clock;
    use crate::options::Options;
    use crate::store::SqliteStore;

    #[test]
    fn a_tournament_stored_before_max_replays_loads_with_one_replay() {
        // As goref-server stored a gauntlet and a knockout before it used goref-tournament's
        // Format: no `max_replays` (a knockout then allowed one replay block).
        let stored = |format: &str| {
            format!(
                r#"{{"id":"t1","name":"K","td":"td","created_ms":1,{format},"game":{{"width":5}},
                "stage":"open","players":["a","b"],"withdrawn":[false,false],"games":[],"log":[]}}"#
            )
        };
        let t: Tournament = serde_json::from_str(&stored(r#""format":"knockout""#)).unwrap();
        assert_eq!(
            t.format,
            Format::Knockout {
                games: 1,
                max_replays: 1
            }
        );
        let t: Tournament = serde_json::from_str(&stored(
            r#""format":"gauntlet","seeds":2,"games_per_pair":3"#,
        ))
        .unwrap();
        assert_eq!(
            t.format,
            Format::Gauntlet {
                seeds: 2,
                games_per_pair: 3
            }
        );
    }

    #[test]
    fn a_knockout_is_stored_beside_its_list_of_games() {
        // A knockout's count of games would meet the tournament's list of games under one
        // key: it is stored as `match_games` (with `max_replays`), and the tournament reads
        // back whole.
        let t: Tournament = serde_json::from_str(
            r#"{"id":"t1","name":"K","td":"td","created_ms":1,"format":"swiss","rounds":2,
            "game":{"width":5},"stage":"open","players":["a","b"],"withdrawn":[false,false],
            "games":[{"number":1,"round":1,"black":0,"white":1,"id":null,"result":null}],
            "log":[]}"#,
        )
        .unwrap();
        assert_eq!(t.format, Format::Swiss { rounds: 2 });
        let knockout = Tournament {
            format: Format::Knockout {
                games: 3,
                max_replays: 2,
            },
            ..t
        };
        let text = serde_json::to_string(&knockout).unwrap();
        assert!(text.contains(r#""match_games":3"#), "{text}");
        assert!(text.contains(r#""max_replays":2"#), "{text}");
        let back: Tournament = serde_json::from_str(&text).unwrap();
        assert_eq!(back.format, knockout.format);
        assert_eq!(back.games.len(), 1);
        assert_eq!(back.games[0].round, Round::FIRST);
    }

    #[tokio::test(start_paused = true)]
    async fn the_leader_records_a_finished_game_and_starts_the_next_round() {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(SqliteStore::open(&dir.path().join("t.db")).unwrap());
        let opts = Options {
            clock: Clock::tokio(),
            ..Options::default()
        };
        let app = App::new(store, opts).await.unwrap();
        let ts = &app.tournaments;
        let players: Vec<String> = ["a", "b", "c", "d"].map(String::from).to_vec();
        let t = Tournament {
            id: "t1".into(),
            name: "Swiss".into(),
            td: "td".into(),
            created_ms: 1,
            format: Format::Swiss { rounds: 2 },
            game: CreateRequest {
                width: Some(5),
                ..CreateRequest::default()
            },
            stage: Stage::Running,
            withdrawn: vec![false; players.len()],
            players,
            games: Vec::new(),
            log: Vec::new(),
        };
        assert!(ts.save(&t, None).await.unwrap());
        ts.advance("t1").await;
        let t = ts.one("t1").await.unwrap();
        let round1: Vec<&TournamentGame> =
            t.games.iter().filter(|g| g.round.number() == 1).collect();
        assert_eq!(round1.len(), 2);
        assert!(round1.iter().all(|g| g.id.is_some() && g.result.is_none()));
        // One game ends: the round goes on.
        let finished = |g: &TournamentGame, result: &str| {
            BusEvent::Game(GameEvent::Finished {
                id: g.id.clone().unwrap(),
                config: Box::new(CreateRequest::default().config().unwrap()),
                result: result.parse().unwrap(),
            })
        };
        let (first, second) = (round1[0].clone(), round1[1].clone());
        ts.on_event(&finished(&first, "B+R")).await;
        let t = ts.one("t1").await.unwrap();
        assert!(t.games.iter().all(|g| g.round.number() == 1));
        // The same end told twice (two servers' notes) counts once; the other game ends:
        // round 2 is paired and started.
        ts.on_event(&finished(&first, "W+R")).await;
        ts.on_event(&finished(&second, "W+3.5")).await;
        let t = ts.one("t1").await.unwrap();
        let g = t.games.iter().find(|g| g.number == first.number).unwrap();
        assert_eq!(g.result.as_deref(), Some("B+R"), "the first result stays");
        let round2: Vec<&TournamentGame> =
            t.games.iter().filter(|g| g.round.number() == 2).collect();
        assert_eq!(round2.len(), 2);
        assert!(round2.iter().all(|g| g.id.is_some()));
        for g in round2.clone() {
            ts.on_event(&finished(g, "B+1.5")).await;
        }
        let t = ts.one("t1").await.unwrap();
        assert_eq!(t.stage, Stage::Over);
        assert_eq!(t.log.last().unwrap().text, "over");
    }

    /// Issue 23: the leader dies while opening a round (its games stored, the tournament not
    /// yet): the next leader takes those games (the same ids: none left an orphan, none opened
    /// twice), tells their players again, and records the one already played to its end.
    #[tokio::test(start_paused = true)]
    async fn a_new_leader_takes_the_games_a_dead_leader_opened() {
        let dir = tempfile::tempdir().unwrap();
        let store: Arc<dyn Store> = Arc::new(SqliteStore::open(&dir.path().join("t.db")).unwrap());
        let opts = Options {
            clock: Clock::tokio(),
            ..Options::default()
        };
        let dead = App::new(store.clone(), opts.clone()).await.unwrap();
        let players: Vec<String> = ["a", "b", "c", "d"].map(String::from).to_vec();
        let t = Tournament {
            id: "t1".into(),
            name: "Swiss".into(),
            td: "td".into(),
            created_ms: 1,
            format: Format::Swiss { rounds: 2 },
            game: CreateRequest {
                width: Some(5),
                ..CreateRequest::default()
            },
            stage: Stage::Running,
            withdrawn: vec![false; players.len()],
            players,
            games: Vec::new(),
            log: Vec::new(),
        };
        assert!(dead.tournaments.save(&t, None).await.unwrap());
        // The dying leader opens round 1 and is gone before it stores the tournament; one of
        // the games is played to its end meanwhile (its players were told).
        let mut unsaved = t.clone();
        dead.tournaments.step(&mut unsaved, &mut Vec::new()).await;
        let opened: Vec<String> = unsaved.games.iter().filter_map(|g| g.id.clone()).collect();
        assert_eq!(opened.len(), 2);
        let decide = Act::Td {
            td: "td".into(),
            action: TdAction::Result {
                result: "B+R".into(),
                reason: String::new(),
            },
        };
        dead.games.act_as_server(&opened[0], decide).await.unwrap();
        drop(dead);
        // The next leader.
        let next = App::new(store.clone(), opts).await.unwrap();
        let mut bus = next.games.subscribe();
        next.tournaments.advance("t1").await;
        let told: Vec<BusEvent> = std::iter::from_fn(|| bus.try_recv().ok()).collect();
        let t = next.tournaments.one("t1").await.unwrap();
        let ids: Vec<String> = t.games.iter().filter_map(|g| g.id.clone()).collect();
        assert_eq!(ids, opened, "the same games");
        assert_eq!(
            store.unfinished().await.unwrap(),
            [opened[1].clone()],
            "no other game opened"
        );
        assert!(
            told.iter().any(|e| matches!(e,
                BusEvent::Game(GameEvent::Started { id, .. }) if *id == opened[1])),
            "the game still to play is told again: {told:?}"
        );
        for event in &told {
            next.tournaments.on_event(event).await;
        }
        let t = next.tournaments.one("t1").await.unwrap();
        let played = t.games.iter().find(|g| g.id.as_ref() == Some(&opened[0]));
        assert_eq!(
            played.and_then(|g| g.result.as_deref()),
            Some("B+R"),
            "the game played meanwhile is recorded"
        );
    }

    /// Issue 23: two servers on one database change the same tournament at once (their
    /// `changing` locks are their own): no change is lost, each made again from a fresh read
    /// when the other's came first.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn changes_made_at_once_on_two_servers_are_all_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.db");
        let mut servers = Vec::new();
        for _ in 0..2 {
            let store = Arc::new(SqliteStore::open(&path).unwrap());
            servers.push(App::new(store, Options::default()).await.unwrap());
        }
        let t = Tournament {
            id: "t1".into(),
            name: "Open".into(),
            td: "td".into(),
            created_ms: 1,
            format: Format::RoundRobin { games_per_pair: 1 },
            game: CreateRequest::default(),
            stage: Stage::Open,
            players: Vec::new(),
            withdrawn: Vec::new(),
            games: Vec::new(),
            log: Vec::new(),
        };
        assert!(servers[0].tournaments.save(&t, None).await.unwrap());
        assert!(
            !servers[1].tournaments.save(&t, None).await.unwrap(),
            "created once"
        );
        // Five changes a server (fewer than TRIES: each failed swap is a change of the
        // other server's, so none runs out of tries).
        let mut joins = Vec::new();
        for (s, server) in servers.iter().enumerate() {
            for k in 0..5 {
                let ts = server.tournaments.clone();
                joins.push(tokio::spawn(async move {
                    let name = format!("p{s}{k}");
                    ts.update("t1", |t| {
                        t.players.push(name.clone());
                        t.withdrawn.push(false);
                        Ok(())
                    })
                    .await
                }));
            }
        }
        for j in joins {
            j.await.unwrap().unwrap();
        }
        let mut players = servers[1].tournaments.one("t1").await.unwrap().players;
        players.sort();
        let mut all: Vec<String> = (0..2)
            .flat_map(|s| (0..5).map(move |k| format!("p{s}{k}")))
            .collect();
        all.sort();
        assert_eq!(players, all, "every server's changes kept");
    }

    /// Issue 23: of two servers on one PostgreSQL, only the leader opens a tournament's
    /// games; a change made on the other is advanced by the leader on the bus's news, once.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn only_the_leading_server_opens_a_tournaments_games() {
        if !goref_pg::testing::postgres_there() {
            return;
        }
        let (first, schema) = crate::store::suite::pg_store().await;
        let one = App::new(first, Options::default()).await.unwrap();
        let waited = std::time::Instant::now();
        while !one.games.leads() {
            assert!(waited.elapsed().as_secs() < 5, "the first server leads");
            // Real time: the lead is PostgreSQL's advisory lock, tried every 0.5 s.
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        let second = crate::store::suite::pg_store_in(&schema).await;
        let two = App::new(second, Options::default()).await.unwrap();
        assert!(!two.games.leads());
        let players: Vec<String> = ["a", "b", "c", "d"].map(String::from).to_vec();
        let t = Tournament {
            id: "t1".into(),
            name: "Swiss".into(),
            td: "td".into(),
            created_ms: 1,
            format: Format::Swiss { rounds: 2 },
            game: CreateRequest {
                width: Some(5),
                ..CreateRequest::default()
            },
            stage: Stage::Running,
            withdrawn: vec![false; players.len()],
            players,
            games: Vec::new(),
            log: Vec::new(),
        };
        // Started on the second server: it stores and tells, and opens nothing.
        assert!(two.tournaments.save(&t, None).await.unwrap());
        two.tournaments.advance("t1").await;
        let news = BusEvent::Tournament { id: "t1".into() };
        two.tournaments.on_event(&news).await;
        assert!(two.tournaments.one("t1").await.unwrap().games.is_empty());
        // The leader opens round 1, once however often it is told.
        one.tournaments.on_event(&news).await;
        one.tournaments.on_event(&news).await;
        let t = two.tournaments.one("t1").await.unwrap();
        let ids: Vec<&str> = t.games.iter().filter_map(|g| g.id.as_deref()).collect();
        assert_eq!((t.games.len(), ids.len()), (2, 2), "{:?}", t.games);
        let stored = one.games.store().unfinished().await.unwrap();
        assert_eq!(stored.len(), 2, "two games opened, not more");
        drop((one, two));
        crate::store::suite::drop_schema(&schema).await;
    }
}
