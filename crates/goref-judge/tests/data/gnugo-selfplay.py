#!/usr/bin/env python3
"""Finished games of GNU Go against itself (never resigning), for measuring `goref judge`.

Drives two `gnugo --mode gtp` processes (Black and White, different seeds) until two passes in
a row (or a resignation or 800 moves) and writes one SGF file a game.

    python3 gnugo-selfplay.py OUTDIR FIRST_SEED COUNT [--level L] [--size N] [--gnugo PATH]

The board is 19x19 unless --size says otherwise (9 and 13 as well).
"""
import os
import subprocess
import sys

LETTERS = "ABCDEFGHJKLMNOPQRST"


class Engine:
    def __init__(self, gnugo, level, seed):
        self.p = subprocess.Popen(
            [gnugo, "--mode", "gtp", "--level", str(level), "--seed", str(seed),
             "--never-resign", "--chinese-rules"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def send(self, command):
        self.p.stdin.write(command + "\n")
        self.p.stdin.flush()
        lines = []
        while True:
            line = self.p.stdout.readline()
            if line == "":
                raise RuntimeError("gnugo exited")
            if line.strip() == "" and lines:
                break
            if line.strip():
                lines.append(line.strip())
        reply = " ".join(lines)
        if not reply.startswith("="):
            raise RuntimeError(f"{command}: {reply}")
        return reply[1:].strip()

    def close(self):
        try:
            self.send("quit")
        except Exception:
            pass
        self.p.wait()


def sgf_point(vertex, size):
    col = LETTERS.index(vertex[0].upper())
    row = int(vertex[1:])
    return "abcdefghijklmnopqrs"[col] + "abcdefghijklmnopqrs"[size - row]


def game(gnugo, level, seed, size):
    black, white = Engine(gnugo, level, 2 * seed), Engine(gnugo, level, 2 * seed + 1)
    for e in (black, white):
        e.send(f"boardsize {size}")
        e.send("clear_board")
        e.send("komi 7.5")
    moves, passes, result = [], 0, None
    engines = {"B": (black, white), "W": (white, black)}
    color = "B"
    while passes < 2 and len(moves) < 800:
        me, other = engines[color]
        vertex = me.send(f"genmove {color.lower()}")
        if vertex.lower() == "resign":
            result = ("W" if color == "B" else "B") + "+R"
            break
        other.send(f"play {color.lower()} {vertex}")
        if vertex.lower() == "pass":
            passes += 1
            moves.append(f";{color}[]")
        else:
            passes = 0
            moves.append(f";{color}[{sgf_point(vertex, size)}]")
        color = "W" if color == "B" else "B"
    black.close()
    white.close()
    head = f"(;GM[1]FF[4]SZ[{size}]KM[7.5]RU[Chinese]PB[GNU Go {level}]PW[GNU Go {level}]"
    if result:
        head += f"RE[{result}]"
    return head + "\n" + "\n".join(moves) + ")\n"


def main():
    out, first, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    level = int(sys.argv[sys.argv.index("--level") + 1]) if "--level" in sys.argv else 0
    gnugo = sys.argv[sys.argv.index("--gnugo") + 1] if "--gnugo" in sys.argv else "/usr/games/gnugo"
    size = int(sys.argv[sys.argv.index("--size") + 1]) if "--size" in sys.argv else 19
    os.makedirs(out, exist_ok=True)
    for seed in range(first, first + count):
        path = os.path.join(out, f"gnugo-{size}-seed{seed}.sgf")
        if os.path.exists(path):
            continue
        text = game(gnugo, level, seed, size)
        with open(path + ".tmp", "w") as f:
            f.write(text)
        os.rename(path + ".tmp", path)
        print(path, flush=True)


if __name__ == "__main__":
    main()
