//! The game record the referee writes: one for every front end.

use goref_rules::Color;
use goref_sgf::{GameRecord, RecordedMove};

use crate::referee::Referee;

/// What the record says of one player beyond the game itself.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PlayerInfo {
    /// The name (`PB`/`PW`): a person's, or a program's GTP `name`.
    pub name: String,
    /// A program's GTP `version`.
    pub version: Option<String>,
    /// The command that ran the program.
    pub command: Option<String>,
}

impl PlayerInfo {
    /// A player known by name only.
    #[must_use]
    pub fn named(name: impl Into<String>) -> PlayerInfo {
        PlayerInfo {
            name: name.into(),
            ..PlayerInfo::default()
        }
    }

    /// `name version`, as `PB`/`PW` carry it.
    #[must_use]
    pub fn full_name(&self) -> String {
        match &self.version {
            Some(v) if !v.trim().is_empty() => format!("{} {}", self.name, v.trim()),
            _ => self.name.clone(),
        }
    }
}

/// What the record says beyond the game: the players, the game's name and date.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RecordInfo {
    /// Black.
    pub black: PlayerInfo,
    /// White.
    pub white: PlayerInfo,
    /// `GN`.
    pub game_name: Option<String>,
    /// `DT` (`YYYY-MM-DD`).
    pub date: Option<String>,
}

impl Referee {
    /// The game record: setup (handicap), moves with the clocks after them, the notes as
    /// comments on the move they follow, the result, and how the game ended in the root
    /// comment.
    #[must_use]
    pub fn record(&self, info: &RecordInfo) -> String {
        let game = self.game();
        let (width, height) = game.geometry().size().unwrap_or((0, 0));
        let mut record = GameRecord::new(width, height);
        let rules = self.settings().rules;
        record.komi = Some(rules.komi);
        record.rules = Some(
            rules
                .preset_name()
                .map_or_else(|| rules.to_string(), |p| p.name().to_string()),
        );
        record.black_player = Some(info.black.full_name());
        record.white_player = Some(info.white.full_name());
        record.result = self.result().map(|r| r.outcome.to_sgf());
        record.setup = game
            .geometry()
            .points()
            .filter_map(|p| game.start().get(p).map(|c| (c, p)))
            .collect();
        if !record.setup.is_empty() || game.first_player() != Color::Black {
            record.first_player = Some(game.first_player());
        }
        record.moves = game
            .moves()
            .iter()
            .map(|&(color, mv)| RecordedMove {
                color,
                mv,
                line: 0,
                comment: None,
            })
            .collect();
        let mut root_notes = Vec::new();
        for note in self.notes() {
            match note.after.checked_sub(1).and_then(|i| record.moves.get_mut(i)) {
                Some(m) => {
                    let comment = m.comment.get_or_insert_with(String::new);
                    if !comment.is_empty() {
                        comment.push('\n');
                    }
                    comment.push_str(&note.text);
                }
                None => root_notes.push(note.text.clone()),
            }
        }
        let text = goref_sgf::write(&record);
        // Root and per-move properties the record model does not hold yet.
        let mut lines: Vec<String> = text.split('\n').map(str::to_string).collect();
        let mut root = String::new();
        if let Some(name) = &info.game_name {
            root.push_str(&format!("GN[{}]", escape(name)));
        }
        if let Some(date) = &info.date {
            root.push_str(&format!("DT[{}]", escape(date)));
        }
        root.push_str(&format!("AP[goref:{}]", env!("CARGO_PKG_VERSION")));
        let handicap = game.start().stone_count(Color::Black);
        if handicap > 0 && game.first_player() == Color::White {
            root.push_str(&format!("HA[{handicap}]"));
        }
        if let Some((tm, ot)) = self.clock().control().sgf_properties() {
            root.push_str(&format!("TM[{tm}]"));
            if let Some(ot) = ot {
                root.push_str(&format!("OT[{}]", escape(&ot)));
            }
        }
        let mut comment = match self.result() {
            Some(r) => {
                let mut c = format!("{} ({}", r.outcome.to_sgf(), r.ending.name());
                if let Some(settled) = r.settled {
                    c.push_str(&format!(", {} by {}", self.settings().protocol, settled.name()));
                }
                c.push(')');
                if let Some(d) = &r.detail {
                    c.push_str(": ");
                    c.push_str(d);
                }
                c
            }
            None => "unfinished".to_string(),
        };
        for (color, p) in [(Color::Black, &info.black), (Color::White, &info.white)] {
            if let Some(cmd) = &p.command {
                comment.push_str(&format!("\n{color}: {cmd}"));
            }
        }
        for n in root_notes {
            comment.push('\n');
            comment.push_str(&n);
        }
        root.push_str(&format!("C[{}]", escape(&comment)));
        lines[0].push_str(&root);
        // Each move node is on its own line, unless a comment spans lines: find them by `;`.
        let mut node = 0;
        let mut out = String::with_capacity(text.len() + 16 * record.moves.len());
        for (i, line) in lines.iter().enumerate() {
            out.push_str(line);
            if i > 0 && line.starts_with(';') {
                if let Some(Some((secs, count))) = self.clock_after_moves().get(node) {
                    let color = game.moves()[node].0.letter();
                    let at = out.rfind(';').expect("a node") + 1;
                    // After `B[xx]`: the first `]` of the node.
                    let close = out[at..].find(']').map_or(out.len(), |c| at + c + 1);
                    let mut props = format!("{color}L[{secs:.3}]");
                    if let Some(n) = count {
                        props.push_str(&format!("O{color}[{n}]"));
                    }
                    out.insert_str(close, &props);
                }
                node += 1;
            }
            if i + 1 < lines.len() {
                out.push('\n');
            }
        }
        out
    }
}

fn escape(text: &str) -> String {
    text.replace('\\', "\\\\").replace(']', "\\]")
}
