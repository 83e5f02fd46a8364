#pragma once
// Two numbers a forward pass speaks of, kept apart by type so that one cannot be passed for the
// other: a token's Position in its sequence (the angle RoPE rotates it by, the order the causal
// mask keeps) and the Cell, the row of the KV cache its key and value are stored in. One sequence
// alone stores position p in cell p (the walkthrough's cache, Meta's cache_k[:, start_pos:]); in a
// batch the sequences share the cells (find_slot), and the two numbers part.
namespace llama {

struct Position {
    int value = 0;
    constexpr explicit Position(int v) : value(v) {}
    friend constexpr bool operator==(Position, Position) = default;
};

struct Cell {
    int value = 0;
    constexpr explicit Cell(int v) : value(v) {}
    friend constexpr bool operator==(Cell, Cell) = default;
};

// The cell one sequence alone stores a position in: the same number.
constexpr Cell soleSequenceCell(Position p) { return Cell(p.value); }

}  // namespace llama
