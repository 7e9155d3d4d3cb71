/* common/short_name.h: one implementation, compiled into the agent and into roofprof_common. */
#include "common/short_name.h"

#include <string.h>

#define NONE ((size_t)-1)

static int ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$';
}

/* s[i..) begins with word (and, when whole, is not followed by an identifier character). */
static int at(const char *s, size_t n, size_t i, const char *word) {
  size_t k = strlen(word);
  return i <= n && n - i >= k && memcmp(s + i, word, k) == 0;
}

static int at_word(const char *s, size_t n, size_t i, const char *word) {
  size_t e = i + strlen(word);
  return at(s, n, i, word) && (e >= n || !ident_char(s[e]));
}

size_t rp_skip_operator(const char *s, size_t n, size_t i) {
  if (!at(s, n, i, "operator")) return i;
  if (i > 0 && ident_char(s[i - 1])) return i;
  size_t j = i + 8;
  if (j < n && ident_char(s[j])) return i; /* "operator_x" is an ordinary name */
  if (j >= n) return j;
  if (s[j] == ' ') {
    size_t k = j + 1;
    static const char *const words[] = {"new", "delete"};
    for (size_t w = 0; w < 2; ++w) {
      if (at_word(s, n, k, words[w])) {
        k += strlen(words[w]);
        return at(s, n, k, "[]") ? k + 2 : k;
      }
    }
    if (at(s, n, k, "\"\"")) return k + 2; /* user-defined literal: operator"" _x */
    /* Conversion operator: the type runs up to the parameter list. */
    int depth = 0;
    while (k < n && !(depth == 0 && s[k] == '(')) {
      if (s[k] == '<') ++depth;
      if (s[k] == '>') --depth;
      ++k;
    }
    return k;
  }
  if (at(s, n, j, "()") || at(s, n, j, "[]")) return j + 2;
  while (j < n && s[j] && strchr("+-*/%^&|~!=<>,", s[j])) ++j;
  /* "operator< <int>": the demangler separates template arguments with a space. */
  if (j + 1 < n && s[j] == ' ' && s[j + 1] == '<') ++j;
  return j;
}

/* Only cv/ref/noexcept qualifiers and spaces in s[i..n). */
static int only_qualifiers(const char *s, size_t n, size_t i) {
  static const char *const quals[] = {"const", "volatile", "&&", "&", "noexcept", "restrict"};
  while (i < n) {
    if (s[i] == ' ') {
      ++i;
      continue;
    }
    size_t q = 0;
    while (q < sizeof quals / sizeof quals[0] && !at(s, n, i, quals[q])) ++q;
    if (q == sizeof quals / sizeof quals[0]) return 0;
    i += strlen(quals[q]);
  }
  return 1;
}

/* The length of s without its trailing " [clone .xxx]" suffixes (possibly several). */
static size_t without_clones(const char *s, size_t n) {
  static const char clone[] = " [clone ";
  const size_t k = sizeof clone - 1;
  while (n > 0 && s[n - 1] == ']') {
    size_t c = NONE;
    for (size_t i = n; i-- > 0;)
      if (n - i >= k && memcmp(s + i, clone, k) == 0) {
        c = i;
        break;
      }
    if (c == NONE) break;
    n = c;
  }
  return n;
}

/* Copies s[begin..end) into out at o, dropping ABI tags ("f[abi:cxx11]" -> "f"). */
static size_t copy_without_tags(const char *s, size_t begin, size_t end, char *out, size_t o) {
  for (size_t i = begin; i < end; ++i) {
    if (s[i] == '[' && at(s, end, i, "[abi:")) {
      const char *close = memchr(s + i, ']', end - i);
      if (close) {
        i = (size_t)(close - s);
        continue;
      }
    }
    out[o++] = s[i];
  }
  return o;
}

size_t rp_short_name(const char *s, size_t n, char *out, size_t cap) {
  size_t body = without_clones(s, n);
  /* Scan at nesting depth 0, skipping operator spellings; remember the last top-level
   * parenthesised group and the last top-level space before it. */
  int depth = 0;
  size_t last_open = NONE, last_close = NONE, space_before_open = NONE, last_space = NONE;
  for (size_t i = 0; i < body;) {
    char c = s[i];
    if (c == 'o') {
      size_t j = rp_skip_operator(s, body, i);
      if (j != i) {
        i = j;
        continue;
      }
    }
    if (c == '(' || c == '<' || c == '[' || c == '{') {
      if (depth == 0 && c == '(') {
        last_open = i;
        space_before_open = last_space;
      }
      ++depth;
    } else if (c == ')' || c == '>' || c == ']' || c == '}') {
      if (depth > 0) --depth;
      if (depth == 0 && c == ')') last_close = i;
    } else if (c == ' ' && depth == 0) {
      last_space = i;
    }
    ++i;
  }
  if (last_open == NONE || last_close == NONE || last_close < last_open || last_open == 0 ||
      !only_qualifiers(s, body, last_close + 1))
    return NONE;
  size_t begin = space_before_open == NONE ? 0 : space_before_open + 1;
  if ((last_open - begin) + (n - body) + 1 > cap) return NONE;
  size_t o = copy_without_tags(s, begin, last_open, out, 0);
  memcpy(out + o, s + body, n - body); /* the clone suffixes, as they were */
  o += n - body;
  out[o] = '\0';
  return o;
}
