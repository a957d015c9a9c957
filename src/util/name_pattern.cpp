// Kernel-name patterns: parse -> postfix -> Thompson NFA -> Pike VM (see
// name_pattern.h for the contract). Nothing here recurses: the parser keeps its
// open groups on an explicit stack, the NFA is built from postfix with an explicit
// fragment stack, and epsilon closures are walked with an explicit stack. Every
// one of those stacks is bounded by the pattern's length (<= kMaxPatternBytes) or
// the program's size, never by the text.
#include "swizzleperf/util/name_pattern.h"

#include <cstdio>
#include <string>
#include <utility>

namespace swz {

namespace {

constexpr std::uint32_t kNone = 0xffffffffu;

// One step of the postfix form: an operand (Char .. Empty) or an operator.
enum class Tok : std::uint8_t { Char, Any, Class, Begin, End, Empty, Cat, Alt, Star, Plus, Quest };
struct PostTok {
  Tok tok;
  unsigned char c = 0;       // Char
  std::uint32_t cls = 0;     // Class
};

bool is_alnum(unsigned char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// A byte of the pattern as a message may show it (messages stay one printable line).
std::string show(unsigned char c) {
  if (c >= 0x20 && c < 0x7f) return std::string(1, static_cast<char>(c));
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(c));
  return buf;
}

std::string at(std::size_t pos) { return " at position " + std::to_string(pos); }

// Reads one byte of a bracket class at p[i] (a byte, or \ and a byte), advancing i.
// `escaped` tells a literal "\-" from a dash.
Result<unsigned char> class_byte(std::string_view p, std::size_t& i, bool& escaped) {
  const auto c = static_cast<unsigned char>(p[i]);
  escaped = false;
  if (c == '[') {
    return make_error("unescaped '['" + at(i) +
                      " inside a bracket class (write \\[; [:name:] classes are not supported)");
  }
  if (c != '\\') {
    ++i;
    return c;
  }
  if (i + 1 >= p.size()) return make_error("trailing backslash" + at(i));
  const auto e = static_cast<unsigned char>(p[i + 1]);
  if (is_alnum(e)) {
    return make_error("'\\" + show(e) + "'" + at(i) +
                      ": escaping a letter or digit is not supported (only punctuation is escaped)");
  }
  i += 2;
  escaped = true;
  return e;
}

// Parses the bracket class opening at p[open] ('['); on success i is past its ']'.
Result<std::bitset<256>> parse_class(std::string_view p, std::size_t open, std::size_t& i) {
  std::bitset<256> set;
  i = open + 1;
  bool negate = false;
  if (i < p.size() && p[i] == '^') {
    negate = true;
    ++i;
  }
  bool first = true;
  for (;;) {
    if (i >= p.size()) return make_error("bracket class" + at(open) + " is not closed with ']'");
    if (p[i] == ']') {
      if (first) {
        return make_error("empty bracket class" + at(open) + " (write \\] for a literal ']')");
      }
      ++i;
      break;
    }
    const std::size_t lo_pos = i;
    bool lo_escaped = false;
    auto lo = class_byte(p, i, lo_escaped);
    if (!lo) return lo.error();
    if (*lo == '-' && !lo_escaped && !first && (i >= p.size() || p[i] != ']')) {
      return make_error("'-'" + at(lo_pos) +
                        " is neither first, last nor in a range of the bracket class (write \\- for a literal '-')");
    }
    if (i + 1 < p.size() && p[i] == '-' && p[i + 1] != ']') {
      ++i;  // a range lo-hi
      bool hi_escaped = false;
      auto hi = class_byte(p, i, hi_escaped);
      if (!hi) return hi.error();
      if (*hi < *lo) {
        return make_error("range '" + show(*lo) + "-" + show(*hi) + "'" + at(lo_pos) + " is reversed");
      }
      for (unsigned v = *lo; v <= *hi; ++v) set.set(v);
    } else {
      set.set(*lo);
    }
    first = false;
  }
  if (negate) set.flip();
  return set;
}

}  // namespace

Result<NamePattern> NamePattern::compile(std::string_view p) {
  if (p.size() > kMaxPatternBytes) {
    return make_error("pattern is " + std::to_string(p.size()) + " bytes, longer than the " +
                      std::to_string(kMaxPatternBytes) + "-byte limit");
  }
  NamePattern np;

  // 1. Pattern -> postfix, with implicit concatenation made explicit (Tok::Cat).
  // natom: operands waiting at this level to be concatenated; nalt: '|' seen at
  // this level. Each open group saves the outer level's counts on `groups`.
  struct Group {
    std::size_t nalt, natom, open;
  };
  enum class Prev { Start, Open, Alt, Atom, Anchor, Close, Quant };
  std::vector<PostTok> post;
  post.reserve(2 * p.size() + 2);
  std::vector<Group> groups;
  std::size_t nalt = 0, natom = 0;
  Prev prev = Prev::Start;

  auto operand = [&](PostTok t, Prev kind) {
    if (natom > 1) {
      --natom;
      post.push_back({Tok::Cat});
    }
    post.push_back(t);
    ++natom;
    prev = kind;
  };
  auto end_alternative = [&] {  // joins this alternative's operands into one
    if (natom == 0) {
      post.push_back({Tok::Empty});
      natom = 1;
    }
    while (--natom > 0) post.push_back({Tok::Cat});
  };

  for (std::size_t i = 0; i < p.size();) {
    const auto c = static_cast<unsigned char>(p[i]);
    switch (c) {
      case '(':
        if (i + 1 < p.size() && p[i + 1] == '?') {
          return make_error("'(?'" + at(i) + ": lookaround and non-capturing groups are not supported");
        }
        if (natom > 1) {
          --natom;
          post.push_back({Tok::Cat});
        }
        groups.push_back({nalt, natom, i});
        nalt = natom = 0;
        prev = Prev::Open;
        ++i;
        break;
      case '|':
        end_alternative();
        ++nalt;
        prev = Prev::Alt;
        ++i;
        break;
      case ')':
        if (groups.empty()) return make_error("unmatched ')'" + at(i));
        end_alternative();
        for (; nalt > 0; --nalt) post.push_back({Tok::Alt});
        nalt = groups.back().nalt;
        natom = groups.back().natom + 1;
        groups.pop_back();
        prev = Prev::Close;
        ++i;
        break;
      case '*':
      case '+':
      case '?': {
        const std::string q = "'" + show(c) + "'" + at(i);
        if (prev == Prev::Quant) {
          return make_error(q + " follows another quantifier (lazy and stacked quantifiers are not supported)");
        }
        if (prev == Prev::Anchor) return make_error(q + ": nothing to repeat (it follows an anchor)");
        if (prev != Prev::Atom && prev != Prev::Close) return make_error(q + ": nothing to repeat");
        post.push_back({c == '*' ? Tok::Star : c == '+' ? Tok::Plus : Tok::Quest});
        prev = Prev::Quant;
        ++i;
        break;
      }
      case '{':
        return make_error("'{'" + at(i) + ": repetition counts {n,m} are not supported (write \\{ for a literal '{')");
      case '}':
        return make_error("unescaped '}'" + at(i) + " (write \\} for a literal '}')");
      case ']':
        return make_error("unescaped ']'" + at(i) + " (write \\] for a literal ']')");
      case '^':
        operand({Tok::Begin}, Prev::Anchor);
        ++i;
        break;
      case '$':
        operand({Tok::End}, Prev::Anchor);
        ++i;
        break;
      case '.':
        operand({Tok::Any}, Prev::Atom);
        ++i;
        break;
      case '[': {
        std::size_t next = i;
        auto set = parse_class(p, i, next);
        if (!set) return set.error();
        np.classes_.push_back(*set);
        operand({Tok::Class, 0, static_cast<std::uint32_t>(np.classes_.size() - 1)}, Prev::Atom);
        i = next;
        break;
      }
      case '\\': {
        if (i + 1 >= p.size()) return make_error("trailing backslash" + at(i));
        const auto e = static_cast<unsigned char>(p[i + 1]);
        if (is_alnum(e)) {
          return make_error("'\\" + show(e) + "'" + at(i) +
                            ": escaping a letter or digit is not supported (no \\d \\w \\b classes or \\1 "
                            "backreferences; only punctuation is escaped)");
        }
        operand({Tok::Char, e}, Prev::Atom);
        i += 2;
        break;
      }
      default:
        operand({Tok::Char, c}, Prev::Atom);
        ++i;
        break;
    }
  }
  if (!groups.empty()) return make_error("'('" + at(groups.back().open) + " is not closed with ')'");
  end_alternative();
  for (; nalt > 0; --nalt) post.push_back({Tok::Alt});

  // 2. Postfix -> Thompson NFA. A fragment is a start instruction and a list of
  // dangling exits ("holes": instruction * 2 + 0 for x, + 1 for y), chained through
  // the unfilled fields themselves so appending two lists is O(1).
  struct Holes {
    std::uint32_t head, tail;
  };
  struct Frag {
    std::uint32_t start;
    Holes out;
  };
  auto& prog = np.prog_;
  prog.reserve(post.size() + 1);
  auto slot = [&](std::uint32_t h) -> std::uint32_t& { return (h & 1) ? prog[h >> 1].y : prog[h >> 1].x; };
  auto single = [&](std::uint32_t pc, unsigned which) {
    const std::uint32_t h = pc * 2 + which;
    slot(h) = kNone;
    return Holes{h, h};
  };
  auto append = [&](Holes a, Holes b) {
    slot(a.tail) = b.head;
    return Holes{a.head, b.tail};
  };
  auto patch = [&](Holes l, std::uint32_t target) {
    for (std::uint32_t h = l.head; h != kNone;) {
      const std::uint32_t next = slot(h);
      slot(h) = target;
      h = next;
    }
  };
  auto emit = [&](Op op, unsigned char ch = 0, std::uint32_t x = kNone, std::uint32_t y = kNone) {
    prog.push_back({op, ch, x, y});
    return static_cast<std::uint32_t>(prog.size() - 1);
  };

  std::vector<Frag> stack;
  stack.reserve(post.size());
  auto pop = [&] {
    Frag f = stack.back();
    stack.pop_back();
    return f;
  };
  for (const PostTok& t : post) {
    const std::size_t need = (t.tok == Tok::Cat || t.tok == Tok::Alt) ? 2
                             : (t.tok == Tok::Star || t.tok == Tok::Plus || t.tok == Tok::Quest) ? 1
                                                                                                 : 0;
    if (stack.size() < need) return make_error("internal error: malformed pattern program");
    switch (t.tok) {
      case Tok::Char:
      case Tok::Any:
      case Tok::Class:
      case Tok::Begin:
      case Tok::End:
      case Tok::Empty: {
        const Op op = t.tok == Tok::Char    ? Op::Char
                      : t.tok == Tok::Any   ? Op::Any
                      : t.tok == Tok::Class ? Op::Class
                      : t.tok == Tok::Begin ? Op::AssertBegin
                      : t.tok == Tok::End   ? Op::AssertEnd
                                            : Op::Jmp;
        const std::uint32_t pc = emit(op, t.c, kNone, t.tok == Tok::Class ? t.cls : kNone);
        stack.push_back({pc, single(pc, 0)});
        break;
      }
      case Tok::Cat: {
        const Frag b = pop(), a = pop();
        patch(a.out, b.start);
        stack.push_back({a.start, b.out});
        break;
      }
      case Tok::Alt: {
        const Frag b = pop(), a = pop();
        const std::uint32_t pc = emit(Op::Split, 0, a.start, b.start);
        stack.push_back({pc, append(a.out, b.out)});
        break;
      }
      case Tok::Quest: {
        const Frag e = pop();
        const std::uint32_t pc = emit(Op::Split, 0, e.start);
        stack.push_back({pc, append(e.out, single(pc, 1))});
        break;
      }
      case Tok::Star:
      case Tok::Plus: {
        const Frag e = pop();
        const std::uint32_t pc = emit(Op::Split, 0, e.start);
        patch(e.out, pc);
        stack.push_back({t.tok == Tok::Star ? pc : e.start, single(pc, 1)});
        break;
      }
    }
  }
  if (stack.size() != 1) return make_error("internal error: malformed pattern program");
  const Frag whole = pop();
  patch(whole.out, emit(Op::Match));
  np.start_ = whole.start;
  return np;
}

namespace {

// The set of NFA states alive at one text position, in insertion order
// (sparse-set: O(1) insert, membership and clear).
class StateList {
 public:
  explicit StateList(std::size_t n) : dense_(n), sparse_(n) {}
  bool contains(std::uint32_t s) const {
    const std::uint32_t i = sparse_[s];
    return i < size_ && dense_[i] == s;
  }
  void insert(std::uint32_t s) {
    sparse_[s] = size_;
    dense_[size_++] = s;
  }
  void clear() {
    size_ = 0;
    consumers = 0;
  }
  const std::uint32_t* begin() const { return dense_.data(); }
  const std::uint32_t* end() const { return dense_.data() + size_; }
  std::size_t consumers = 0;  // states that read a byte (Char, Any, Class)

 private:
  std::vector<std::uint32_t> dense_, sparse_;
  std::uint32_t size_ = 0;
};

}  // namespace

bool NamePattern::search(std::string_view text) const {
  const std::size_t len = text.size();
  StateList cur(prog_.size()), next(prog_.size());
  std::vector<std::uint32_t> todo;
  todo.reserve(2 * prog_.size() + 1);  // each state enters a list once and pushes <= 2

  // Adds `from` and every state reachable from it without reading a byte, at text
  // position pos. True when that reaches Match: the pattern matched.
  auto add = [&](StateList& list, std::uint32_t from, std::size_t pos) {
    todo.clear();
    todo.push_back(from);
    while (!todo.empty()) {
      const std::uint32_t s = todo.back();
      todo.pop_back();
      if (list.contains(s)) continue;
      list.insert(s);
      const Inst& in = prog_[s];
      switch (in.op) {
        case Op::Match:
          return true;
        case Op::Jmp:
          todo.push_back(in.x);
          break;
        case Op::Split:
          todo.push_back(in.y);
          todo.push_back(in.x);
          break;
        case Op::AssertBegin:
          if (pos == 0) todo.push_back(in.x);
          break;
        case Op::AssertEnd:
          if (pos == len) todo.push_back(in.x);
          break;
        case Op::Char:
        case Op::Any:
        case Op::Class:
          ++list.consumers;
          break;
      }
    }
    return false;
  };

  for (std::size_t pos = 0;; ++pos) {
    if (add(cur, start_, pos)) return true;  // a match may also start here
    if (pos == len) return false;
    if (cur.consumers == 0 && pos > 0) {
      // Nothing alive, and a match starting here reads nothing. Strictly between
      // the ends every start is the same (only ^ and $ look at the position), so
      // only a match at the very end ("$", "x|$") is still possible.
      cur.clear();
      pos = len - 1;
      continue;
    }
    const auto c = static_cast<unsigned char>(text[pos]);
    next.clear();
    for (const std::uint32_t s : cur) {
      const Inst& in = prog_[s];
      const bool takes = in.op == Op::Char    ? in.c == c
                         : in.op == Op::Any   ? (c != '\n' && c != '\r')
                         : in.op == Op::Class ? classes_[in.y].test(c)
                                              : false;
      if (takes && add(next, in.x, pos + 1)) return true;
    }
    std::swap(cur, next);
    next.clear();
  }
}

}  // namespace swz
