//! The book (`docs/src`, an mdBook) as written (issue 40): every ```` ```sh ```` or
//! ```` ```console ```` example that calls `goref` runs with this build's binary, or says before
//! it why not (`<!-- not run: WHY -->`), or, for a command that runs until stopped (a server),
//! must start and keep running (`<!-- starts: WHY -->`); console examples print what they show.
//! Also: every chapter is in `SUMMARY.md`, and every link between chapters finds its page and
//! heading.
//!
//! Each chapter's examples run in order in a temporary folder of their own, with this goref
//! first on `PATH` (an example's `goref` is the one cargo built), each block within 20 s.

use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use std::os::unix::process::CommandExt as _;

const GOREF: &str = env!("CARGO_BIN_EXE_goref");
/// The longest a block may run.
const BLOCK_TIMEOUT: Duration = Duration::from_secs(20);
/// How long a `starts:` block must keep running.
const STARTS_FOR: Duration = Duration::from_secs(2);

fn book_src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/src")
}

/// Every Markdown file of the book, by path relative to `docs/src`.
fn chapters() -> BTreeMap<String, String> {
    fn walk(dir: &Path, root: &Path, out: &mut BTreeMap<String, String>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                walk(&path, root, out);
            } else if path.extension().is_some_and(|e| e == "md") {
                let name = path
                    .strip_prefix(root)
                    .unwrap()
                    .to_str()
                    .unwrap()
                    .to_owned();
                out.insert(name, std::fs::read_to_string(&path).unwrap());
            }
        }
    }
    let root = book_src();
    let mut out = BTreeMap::new();
    walk(&root, &root, &mut out);
    assert!(out.len() > 10, "the book is missing: {out:?}");
    out
}

#[derive(Debug, PartialEq)]
enum Mark {
    Run,
    NotRun,
    Starts,
}

#[derive(Debug, PartialEq)]
enum Kind {
    Sh,
    Console,
}

#[derive(Debug)]
struct Block {
    /// `chapter.md:LINE` of the opening fence.
    at: String,
    kind: Kind,
    mark: Mark,
    text: String,
}

/// The `sh` and `console` blocks of a chapter, with the mark of the comment before each.
fn blocks(name: &str, text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut lines = text.lines().enumerate();
    let mut before = String::new();
    while let Some((n, line)) = lines.next() {
        let trimmed = line.trim_start();
        let Some(info) = trimmed.strip_prefix("```") else {
            if !line.trim().is_empty() {
                before = line.trim().to_owned();
            }
            continue;
        };
        let indent = line.len() - trimmed.len();
        let mut body = String::new();
        for (_, inner) in lines.by_ref() {
            if inner.trim_start().starts_with("```") {
                break;
            }
            body.push_str(inner.get(indent..).unwrap_or(inner.trim_start()));
            body.push('\n');
        }
        let kind = match info.trim() {
            "sh" => Kind::Sh,
            "console" => Kind::Console,
            _ => {
                before.clear();
                continue;
            }
        };
        let mark = match before
            .strip_prefix("<!--")
            .and_then(|c| c.strip_suffix("-->"))
            .map(str::trim)
        {
            Some(c) if c.starts_with("not run:") || c.starts_with("starts:") => {
                let (word, why) = c.split_once(':').unwrap();
                assert!(
                    why.trim().len() > 5,
                    "{name}:{}: say why the block is not run: {before}",
                    n + 1
                );
                if word == "starts" {
                    Mark::Starts
                } else {
                    Mark::NotRun
                }
            }
            Some(c) => panic!("{name}:{}: an unknown mark before a block: {c}", n + 1),
            None => Mark::Run,
        };
        before.clear();
        out.push(Block {
            at: format!("{name}:{}", n + 1),
            kind,
            mark,
            text: body,
        });
    }
    out
}

/// Whether a shell line runs `goref` (at its start, or after `|`, `;`, `&&`, `(` or `$(`).
fn calls_goref(line: &str) -> bool {
    let line = line.trim();
    if line.starts_with('#') {
        return false;
    }
    line.split(['|', ';', '&', '('])
        .any(|part| part.trim_start().starts_with("goref ") || part.trim() == "goref")
}

/// A console block's commands (`$ ` lines with their `\` continuations), each with the output
/// lines shown after it.
fn console_commands(text: &str) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    let mut continued = false;
    for line in text.lines() {
        if continued {
            let (command, _) = out.last_mut().unwrap();
            command.push('\n');
            command.push_str(line);
            continued = line.ends_with('\\');
        } else if let Some(command) = line.strip_prefix("$ ") {
            out.push((command.to_owned(), Vec::new()));
            continued = command.ends_with('\\');
        } else if let Some((_, shown)) = out.last_mut() {
            shown.push(line.trim_end().to_owned());
        }
    }
    out
}

/// Whether `actual` is the line `shown`, where `…` in `shown` stands for any text.
fn line_matches(shown: &str, actual: &str) -> bool {
    let actual = actual.trim_end();
    let parts: Vec<&str> = shown.split('…').collect();
    if parts.len() == 1 {
        return actual == shown;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !actual.starts_with(first) || actual.len() < first.len() + last.len() {
        return false;
    }
    let mut rest = &actual[first.len()..];
    for middle in &parts[1..parts.len() - 1] {
        match rest.find(middle) {
            Some(at) => rest = &rest[at + middle.len()..],
            None => return false,
        }
    }
    rest.ends_with(last)
}

/// The lines `shown` (blank ones and lines of `…` alone skipped) appear in order in `actual`.
fn shows(shown: &[String], actual: &str) -> Result<(), String> {
    let actual: Vec<&str> = actual.lines().collect();
    let mut at = 0;
    for line in shown {
        if line.trim().is_empty() || line.trim() == "…" {
            continue;
        }
        match actual[at..].iter().position(|a| line_matches(line, a)) {
            Some(found) => at += found + 1,
            None => return Err(format!("not printed (in this order): {line}")),
        }
    }
    Ok(())
}

/// Runs `script` with `sh` in `dir`, in a process group of its own, with this goref first on
/// `PATH`; stdout and stderr go to files there.
fn spawn(script: &str, dir: &Path, flags: &str) -> Child {
    let bin = Path::new(GOREF).parent().unwrap();
    let path = std::env::var("PATH").unwrap_or_default();
    Command::new("sh")
        .arg(flags)
        .arg(script)
        .current_dir(dir)
        .env("PATH", format!("{}:{path}", bin.display()))
        .stdin(Stdio::null())
        .stdout(File::create(dir.join(".stdout")).unwrap())
        .stderr(File::create(dir.join(".stderr")).unwrap())
        .process_group(0)
        .spawn()
        .unwrap()
}

/// Ends `child`'s process group (the shell and what it started).
fn end(child: &mut Child) {
    let group = i32::try_from(child.id()).unwrap();
    // SAFETY: a signal to the process group this test made for the block.
    unsafe {
        libc::kill(-group, libc::SIGKILL);
    }
    let _ = child.wait();
}

/// Waits for `child` at most `limit`: its status, or `None` when it was still running.
fn wait(child: &mut Child, limit: Duration) -> Option<ExitStatus> {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return Some(status);
        }
        if started.elapsed() > limit {
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn output(dir: &Path) -> (String, String) {
    (
        std::fs::read_to_string(dir.join(".stdout")).unwrap_or_default(),
        std::fs::read_to_string(dir.join(".stderr")).unwrap_or_default(),
    )
}

/// Runs `script` to its end within the timeout: its status and output.
fn run(script: &str, dir: &Path, flags: &str) -> Result<(ExitStatus, String, String), String> {
    let mut child = spawn(script, dir, flags);
    let status = wait(&mut child, BLOCK_TIMEOUT);
    end(&mut child);
    let (stdout, stderr) = output(dir);
    match status {
        Some(status) if !stderr.contains("panicked") => Ok((status, stdout, stderr)),
        Some(_) => Err(format!("panicked:\n{stdout}{stderr}")),
        None => Err(format!(
            "still running after {BLOCK_TIMEOUT:?}:\n{stdout}{stderr}"
        )),
    }
}

/// Runs one block in `dir`.
fn check(block: &Block, dir: &Path) -> Result<(), String> {
    match (&block.kind, &block.mark) {
        (Kind::Sh, Mark::Run) => {
            let (status, stdout, stderr) = run(&block.text, dir, "-ec")?;
            if status.success() {
                Ok(())
            } else {
                Err(format!("{status}:\n{stdout}{stderr}"))
            }
        }
        (_, Mark::Starts) => {
            let script = match block.kind {
                Kind::Sh => block.text.clone(),
                Kind::Console => console_commands(&block.text)
                    .into_iter()
                    .map(|(c, _)| c)
                    .collect::<Vec<_>>()
                    .join("\n"),
            };
            let mut child = spawn(&script, dir, "-ec");
            let status = wait(&mut child, STARTS_FOR);
            end(&mut child);
            let (stdout, stderr) = output(dir);
            match status {
                None if !stderr.contains("panicked") => Ok(()),
                None => Err(format!("panicked:\n{stdout}{stderr}")),
                Some(status) => Err(format!(
                    "ended ({status}) instead of running:\n{stdout}{stderr}"
                )),
            }
        }
        (Kind::Console, Mark::Run) => {
            for (command, shown) in console_commands(&block.text) {
                let (status, stdout, stderr) = run(&command, dir, "-c")?;
                let printed = format!("{stdout}{stderr}");
                let nothing_shown = shown.iter().all(|l| l.trim().is_empty());
                if nothing_shown && !status.success() {
                    return Err(format!("$ {command}: {status}:\n{printed}"));
                }
                shows(&shown, &printed).map_err(|e| format!("$ {command}: {e}\n{printed}"))?;
            }
            Ok(())
        }
        (_, Mark::NotRun) => Ok(()),
    }
}

fn is_example(block: &Block) -> bool {
    match block.kind {
        Kind::Sh => block.text.lines().any(calls_goref),
        Kind::Console => console_commands(&block.text)
            .iter()
            .any(|(c, _)| c.lines().any(calls_goref)),
    }
}

#[test]
fn every_example_of_the_book_runs_or_says_why_not() {
    let started = Instant::now();
    let gnugo = goref_gtp::testing::gnugo_there();
    let mut failures = Vec::new();
    let (mut ran, mut not_run) = (0, Vec::new());
    for (name, text) in chapters() {
        let examples: Vec<Block> = blocks(&name, &text)
            .into_iter()
            .filter(is_example)
            .collect();
        if examples.is_empty() {
            continue;
        }
        let dir = std::env::temp_dir().join(format!(
            "goref-book-{}-{}",
            std::process::id(),
            name.replace(['/', '.'], "-")
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let failed_before = failures.len();
        for block in &examples {
            if block.mark == Mark::NotRun {
                not_run.push(block.at.clone());
                continue;
            }
            if block.text.contains("/usr/games/gnugo") && !gnugo {
                not_run.push(format!("{} (no GNU Go)", block.at));
                continue;
            }
            let one = Instant::now();
            match check(block, &dir) {
                Ok(()) => ran += 1,
                Err(e) => failures.push(format!("{}:\n{}\n{e}", block.at, block.text)),
            }
            eprintln!("{}: {:.1} s", block.at, one.elapsed().as_secs_f64());
        }
        // A chapter that failed keeps its folder, to look into.
        if failures.len() == failed_before {
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
    eprintln!(
        "{ran} examples run, {} not run ({}), in {:.1} s",
        not_run.len(),
        not_run.join(", "),
        started.elapsed().as_secs_f64()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(
        ran >= 20,
        "only {ran} examples found: is the book read right?"
    );
}

/// mdBook's id of a heading: its text without formatting, lower case, spaces as `-`, and
/// nothing but letters, digits, `-` and `_`.
fn heading_id(heading: &str) -> String {
    heading
        .chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '_' || c == '-' {
                Some(c.to_lowercase().next().unwrap())
            } else if c.is_whitespace() {
                Some('-')
            } else {
                None
            }
        })
        .collect()
}

/// The ids of a chapter's headings (outside code blocks).
fn headings(text: &str) -> BTreeSet<String> {
    let mut ids = BTreeSet::new();
    let mut in_code = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
        } else if !in_code && line.starts_with('#') {
            ids.insert(heading_id(line.trim_start_matches('#').trim()));
        }
    }
    ids
}

/// The targets of a chapter's Markdown links `](target)` that are not web addresses.
fn local_links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_code = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        let mut rest = line;
        while let Some(at) = rest.find("](") {
            rest = &rest[at + 2..];
            let Some(close) = rest.find(')') else { break };
            let target = &rest[..close];
            if !target.contains("://") && !target.starts_with("mailto:") {
                out.push(target.to_owned());
            }
            rest = &rest[close..];
        }
    }
    out
}

#[test]
fn every_chapter_is_in_the_summary_and_every_link_finds_its_heading() {
    let chapters = chapters();
    let summary = &chapters["SUMMARY.md"];
    let listed: BTreeSet<String> = local_links(summary).into_iter().collect();
    for name in chapters.keys().filter(|n| *n != "SUMMARY.md") {
        assert!(listed.contains(name), "{name} is not in SUMMARY.md");
    }
    for name in &listed {
        assert!(
            chapters.contains_key(name),
            "SUMMARY.md lists {name}, not there"
        );
    }
    let ids: BTreeMap<&String, BTreeSet<String>> =
        chapters.iter().map(|(n, t)| (n, headings(t))).collect();
    let mut broken = Vec::new();
    for (name, text) in &chapters {
        let here = Path::new(name).parent().unwrap();
        for target in local_links(text) {
            let (file, anchor) = target.split_once('#').unwrap_or((&target, ""));
            let file = if file.is_empty() {
                name.clone()
            } else {
                // Resolve `../` against the chapter's folder.
                let mut parts: Vec<&str> = here
                    .components()
                    .map(|c| c.as_os_str().to_str().unwrap())
                    .collect();
                for part in file.split('/') {
                    match part {
                        ".." => {
                            parts.pop();
                        }
                        "." => {}
                        p => parts.push(p),
                    }
                }
                parts.join("/")
            };
            match ids.get(&file) {
                None => broken.push(format!("{name}: {target}: no such chapter")),
                Some(found) if !anchor.is_empty() && !found.contains(anchor) => {
                    broken.push(format!("{name}: {target}: no such heading"));
                }
                Some(_) => {}
            }
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

#[test]
fn the_example_reader_reads_what_the_book_writes() {
    assert!(calls_goref("goref score x.sgf"));
    assert!(calls_goref("printf 'x' | goref score -"));
    assert!(calls_goref("cd a && goref perft --size 2"));
    assert!(!calls_goref("command = \"goref engine random\""));
    assert!(!calls_goref("# goref score"));
    assert!(!calls_goref("cargo install --path crates/goref"));
    let commands = console_commands("$ goref a \\\n  b\nout 1\n\n$ goref c\nout 2\n");
    assert_eq!(
        commands,
        vec![
            (
                "goref a \\\n  b".to_owned(),
                vec!["out 1".to_owned(), String::new()]
            ),
            ("goref c".to_owned(), vec!["out 2".to_owned()]),
        ]
    );
    assert!(line_matches("… s on … threads", "0.1 s on 2 threads"));
    assert!(!line_matches("… s on … threads", "0.1 s on 2 cores"));
    assert!(line_matches("=", "= "));
    assert!(shows(&["a".into(), "…".into(), "c".into()], "a\nb\nc\n").is_ok());
    assert!(shows(&["c".into(), "a".into()], "a\nb\nc\n").is_err());
    assert_eq!(
        heading_id("The tournament director's perfect play: `--referee perfect`"),
        "the-tournament-directors-perfect-play---referee-perfect"
    );
    let found = blocks(
        "x.md",
        "<!-- not run: needs PostgreSQL -->\n```sh\ngoref worker --queue q\n```\n\n```toml\na = 1\n```\n",
    );
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].mark, Mark::NotRun);
}
