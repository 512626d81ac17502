/* The PTB-like word splitter of filters/nq/text_tokens.py in C.
 *
 * ``tokenize_text(text)`` returns exactly what ``filters.nq.text_tokens.tokenize_text``
 * returns: a list of (start, end, token) tuples over the code points of ``text``.  The
 * Python module stays the reference; every regex there is a hand-written scanner here that
 * gives the same (leftmost, backtracking) match.  The only global written is a bitmap of
 * PUNCT, at import.  The word and character tables are rendered from the sets of
 * text_tokens.py between the GENERATED markers by filters/nq/gen_c_tables.py (never edit
 * them by hand); the module exports copies of them (CLITICS, ABBREVIATIONS, PUNCT, ...)
 * for the tests.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define NO_CHAR ((Py_UCS4)0xFFFFFFFFu)

/* ---- character classes ------------------------------------------------------------ */

/* BEGIN GENERATED: chars (python -m filters.nq.gen_c_tables --write) */
/* The characters of filters/nq/text_tokens.py, sorted (CURRENCY: the signs _NUMBER
 * starts with); OPENERS as zero-terminated code points; TRANSLATE: _TRANSLATE. */
#define N_PUNCT 85
static const Py_UCS4 PUNCT[] = {
    0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, 0x28, 0x29, 0x2A, 0x2B, 0x2C, 0x2E, 0x2F, 0x3A,
    0x3B, 0x3C, 0x3D, 0x3E, 0x3F, 0x40, 0x5B, 0x5C, 0x5D, 0x5E, 0x60, 0x7B, 0x7C, 0x7D, 0x7E,
    0xA1, 0xA2, 0xA3, 0xA5, 0xA7, 0xA9, 0xAB, 0xAE, 0xB0, 0xB6, 0xB7, 0xBB, 0xBF, 0x60C, 0x61B,
    0x61F, 0x964, 0x2013, 0x2014, 0x2015, 0x2018, 0x2019, 0x201A, 0x201C, 0x201D, 0x201E,
    0x2022, 0x2026, 0x2032, 0x2033, 0x2039, 0x203A, 0x20AC, 0x2122, 0x3001, 0x3002, 0x3008,
    0x3009, 0x300A, 0x300B, 0x300C, 0x300D, 0x300E, 0x300F, 0x3010, 0x3011, 0x3014, 0x3015,
    0xFF01, 0xFF08, 0xFF09, 0xFF0C, 0xFF1A, 0xFF1B, 0xFF1F,
};
#define N_URL_TRAIL 12
static const Py_UCS4 URL_TRAIL[] = {
    0x21, 0x22, 0x27, 0x29, 0x2C, 0x2E, 0x3A, 0x3B, 0x3F, 0x5D, 0x2019, 0x201D,
};
#define N_DQUOTES 4
static const Py_UCS4 DQUOTES[] = {
    0x22, 0x201C, 0x201D, 0x201E,
};
#define N_APOSTROPHES 2
static const Py_UCS4 APOSTROPHES[] = {
    0x27, 0x2019,
};
#define N_CURRENCY 4
static const Py_UCS4 CURRENCY[] = {
    0x24, 0xA3, 0xA5, 0x20AC,
};
static const struct { const char *name; const Py_UCS4 *set; Py_ssize_t n; } CHAR_TABLES[] = {
    {"APOSTROPHES", APOSTROPHES, N_APOSTROPHES},
    {"CURRENCY", CURRENCY, N_CURRENCY},
    {"DQUOTES", DQUOTES, N_DQUOTES},
    {"PUNCT", PUNCT, N_PUNCT},
    {"URL_TRAIL", URL_TRAIL, N_URL_TRAIL},
    {NULL, NULL, 0},
};
#define N_OPENERS 9
#define OPENER_CAP 3
static const Py_UCS4 OPENERS[N_OPENERS][OPENER_CAP] = {
    {0x28}, {0x2D}, {0x2F}, {0x5B}, {0x60}, {0x7B}, {0x2018}, {0x201C}, {0x2D, 0x2D},
};
#define N_TRANSLATE 9
static const struct { Py_UCS4 ch; const char *to; } TRANSLATE[] = {
    {0x5B, "("}, {0x5D, ")"}, {0x2013, "--"}, {0x2014, "--"}, {0x2015, "--"}, {0x2018, "'"},
    {0x2019, "'"}, {0x201A, "'"}, {0x2026, "..."},
};
/* END GENERATED: chars */

/* ch in the sorted set[0:n] */
static inline int
in_sorted(Py_UCS4 ch, const Py_UCS4 *set, Py_ssize_t n)
{
    Py_ssize_t lo = 0, hi = n;
    if (n == 0 || ch < set[0] || ch > set[n - 1])
        return 0;
    while (lo < hi) {
        Py_ssize_t mid = (lo + hi) / 2;
        if (set[mid] < ch)
            lo = mid + 1;
        else if (set[mid] > ch)
            hi = mid;
        else
            return 1;
    }
    return 0;
}

/* The Latin-1 characters of PUNCT as bits, set from PUNCT at import (is_punct tests every
 * character of the text). */
static uint64_t punct_latin1[4];

/* _PUNCT */
static inline int
is_punct(Py_UCS4 ch)
{
    if (ch < 256)
        return (int)((punct_latin1[ch >> 6] >> (ch & 63)) & 1);
    return in_sorted(ch, PUNCT, N_PUNCT);
}

/* [^_PUNCT\-]: a character of a word atom (and of _PLAIN). */
static inline int
is_wordch(Py_UCS4 ch)
{
    return ch != '-' && !is_punct(ch);
}

/* What _CHUNK does not match: \s, U+200B, U+FEFF. */
static inline int
is_chunk_sep(Py_UCS4 ch)
{
    return ch == 0x200B || ch == 0xFEFF || Py_UNICODE_ISSPACE(ch);
}

static inline int
is_dquote(Py_UCS4 ch)
{
    return in_sorted(ch, DQUOTES, N_DQUOTES);
}

static inline int
is_apos_ch(Py_UCS4 ch)
{
    return in_sorted(ch, APOSTROPHES, N_APOSTROPHES);
}

/* the currency signs _NUMBER starts with */
static inline int
is_currency(Py_UCS4 ch)
{
    return in_sorted(ch, CURRENCY, N_CURRENCY);
}

/* _URL_TRAIL */
static inline int
is_url_trail(Py_UCS4 ch)
{
    return in_sorted(ch, URL_TRAIL, N_URL_TRAIL);
}

/* [^\s"<>] */
static inline int
is_url_char(Py_UCS4 ch)
{
    return ch != '"' && ch != '<' && ch != '>' && !Py_UNICODE_ISSPACE(ch);
}

static inline int
is_ascii_alpha(Py_UCS4 ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}

/* [A-Za-z0-9] */
static inline int
is_dom_x(Py_UCS4 ch)
{
    return is_ascii_alpha(ch) || (ch >= '0' && ch <= '9');
}

/* [A-Za-z0-9-] */
static inline int
is_dom_y(Py_UCS4 ch)
{
    return is_dom_x(ch) || ch == '-';
}

/* A pattern literal (lower-case ASCII letter or symbol) under re.IGNORECASE on str. */
static inline int
ci_eq(Py_UCS4 ch, char lit)
{
    if (lit >= 'a' && lit <= 'z') {
        if (ch == (Py_UCS4)lit || ch == (Py_UCS4)(lit - 'a' + 'A'))
            return 1;
        if (lit == 's' && ch == 0x17F)  /* LATIN SMALL LETTER LONG S */
            return 1;
        if (lit == 'k' && ch == 0x212A)  /* KELVIN SIGN */
            return 1;
        return 0;
    }
    return ch == (Py_UCS4)lit;
}

/* ---- word sets and str.lower() ------------------------------------------------------ */

/* BEGIN GENERATED: words (python -m filters.nq.gen_c_tables --write) */
/* The word sets of filters/nq/text_tokens.py (lower-case ASCII; a word is looked
 * up by its str.lower(), of at most KEY_CAP characters); WORD_TABLES: their export
 * names. */
#define KEY_CAP 16
static const char *const CLITICS[] = {
    "d", "ll", "m", "re", "s", "ve", NULL,
};
static const char *const HYPHEN_PREFIXES[] = {
    "a", "agro", "ante", "anti", "arch", "be", "bi", "bio", "co", "counter", "cross", "cyber",
    "de", "e", "eco", "ex", "extra", "inter", "intra", "macro", "mega", "micro", "mid", "mini",
    "multi", "neo", "non", "over", "pan", "para", "peri", "post", "pre", "pro", "pseudo",
    "quasi", "re", "semi", "sub", "super", "tri", "u", "ultra", "un", "uni", "vice", "x", NULL,
};
static const char *const ABBREVIATIONS[] = {
    "approx", "apr", "aug", "ca", "capt", "cf", "ch", "co", "col", "corp", "dec", "dept", "dr",
    "ed", "eds", "feb", "fig", "ft", "gen", "gov", "hon", "inc", "jan", "jr", "jul", "jun",
    "lt", "ltd", "mar", "mr", "mrs", "ms", "mt", "no", "nov", "oct", "op", "p", "pp", "prof",
    "rep", "rev", "sen", "sep", "sept", "sgt", "sr", "st", "v", "vol", "vols", "vs", NULL,
};
static const struct { const char *name; const char *const *words; } WORD_TABLES[] = {
    {"ABBREVIATIONS", ABBREVIATIONS},
    {"CLITICS", CLITICS},
    {"HYPHEN_PREFIXES", HYPHEN_PREFIXES},
    {NULL, NULL},
};
/* END GENERATED: words */

/* str.lower() of t[s:e] into key when the result is ASCII and short; -1 otherwise (then
 * it is in none of the ASCII word sets).  The only non-ASCII code point whose lower() is
 * ASCII is U+212A KELVIN SIGN -> 'k' (checked over all of Unicode). */
static Py_ssize_t
lower_key(const Py_UCS4 *t, Py_ssize_t s, Py_ssize_t e, char *key)
{
    Py_ssize_t n = e - s, k;
    if (n < 0 || n > KEY_CAP)
        return -1;
    for (k = 0; k < n; k++) {
        Py_UCS4 ch = t[s + k];
        if (ch < 128)
            key[k] = (char)((ch >= 'A' && ch <= 'Z') ? ch - 'A' + 'a' : ch);
        else if (ch == 0x212A)
            key[k] = 'k';
        else
            return -1;
    }
    return n;
}

static int
key_in(const char *key, Py_ssize_t n, const char *const *set)
{
    if (n < 0)
        return 0;
    for (; *set; set++) {
        if ((Py_ssize_t)strlen(*set) == n && memcmp(*set, key, (size_t)n) == 0)
            return 1;
    }
    return 0;
}

static int
lower_in(const Py_UCS4 *t, Py_ssize_t s, Py_ssize_t e, const char *const *set)
{
    char key[KEY_CAP];
    return key_in(key, lower_key(t, s, e, key), set);
}

static int
lower_is(const Py_UCS4 *t, Py_ssize_t s, Py_ssize_t e, const char *word)
{
    char key[KEY_CAP];
    Py_ssize_t n = lower_key(t, s, e, key);
    return n >= 0 && (Py_ssize_t)strlen(word) == n && memcmp(word, key, (size_t)n) == 0;
}

/* ---- word predicates ---------------------------------------------------------------- */

static int
all_wordch(const Py_UCS4 *t, Py_ssize_t s, Py_ssize_t e)
{
    for (; s < e; s++)
        if (!is_wordch(t[s]))
            return 0;
    return 1;
}

/* _is_initials(t[s:e]) */
static int
is_initials(const Py_UCS4 *t, Py_ssize_t s, Py_ssize_t e)
{
    Py_ssize_t n = e - s, k;
    if (n <= 0 || n % 2)
        return 0;
    for (k = 0; k < n; k += 2)
        if (!Py_UNICODE_ISALPHA(t[s + k]) || t[s + k + 1] != '.')
            return 0;
    return 1;
}

/* final_period_stays(t[s:e], next_char) */
static int
final_period_stays(const Py_UCS4 *t, Py_ssize_t s, Py_ssize_t e, Py_UCS4 nc)
{
    if (nc == NO_CHAR)
        return 0;
    if (Py_UNICODE_ISDIGIT(nc))
        return 1;
    if (Py_UNICODE_ISALPHA(nc))
        return (e - s == 1 && Py_UNICODE_ISALPHA(t[s])) || lower_in(t, s, e, ABBREVIATIONS);
    return 0;
}

/* ---- regex scanners (match at p, text bounded by pe); end or -1 ------------------------ */

/* _DOMAIN: [A-Za-z0-9][A-Za-z0-9-]*(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}
 *          (?![A-Za-z0-9-]|\.[A-Za-z0-9])
 * Every quantified part must take a whole dot-separated segment, so the backtracking
 * match ends after the last segment (within the first run of non-empty ones) that is
 * all letters, at least two, and passes the lookahead.
 *
 * The words of one long dotted run ("1.1.1...", "a1.a1....") all reach its end: `m` keeps
 * what the last call scanned, so that each later word of the run reuses it instead of
 * scanning the rest again (quadratic in the run). */
typedef struct {
    Py_ssize_t run_s, run_e;       /* a run of [A-Za-z0-9-] */
    Py_ssize_t chain_q, chain_end;  /* dot-separated segments from the '.' at chain_q */
    Py_ssize_t chain_best;          /* the end of their last matching segment, or -1 */
} DomainMemo;

static Py_ssize_t
domain_match(const Py_UCS4 *t, Py_ssize_t p, Py_ssize_t pe, DomainMemo *m)
{
    Py_ssize_t q, best = -1;
    if (p >= pe || !is_dom_x(t[p]))
        return -1;
    if (m->run_s <= p && p < m->run_e) {
        q = m->run_e;
    } else {
        q = p + 1;
        while (q < pe && is_dom_y(t[q]))
            q++;
        m->run_s = p;
        m->run_e = q;
    }
    if (q >= pe || t[q] != '.')
        return -1;
    /* a '.' inside the chain: the same segments follow it, up to the same end */
    if (m->chain_q <= q && q < m->chain_end)
        return m->chain_best > q ? m->chain_best : -1;
    m->chain_q = q;
    while (q < pe && t[q] == '.') {
        Py_ssize_t s = q + 1, e = s;
        int letters = 1;
        while (e < pe && is_dom_y(t[e])) {
            if (!is_ascii_alpha(t[e]))
                letters = 0;
            e++;
        }
        if (e == s)
            break;
        if (letters && e - s >= 2
                && !(e + 1 < pe && t[e] == '.' && is_dom_x(t[e + 1])))
            best = e;
        q = e;
    }
    m->chain_end = q;
    m->chain_best = best;
    return best;
}

/* _NUMBER: [$€£¥]?\d+(?:,\d{3})*(?:\.\d+)?(?![\d]) */
static Py_ssize_t
number_match(const Py_UCS4 *t, Py_ssize_t p, Py_ssize_t pe)
{
    Py_ssize_t q = p, b, prev_b = -1;
    if (q < pe && is_currency(t[q]))
        q++;
    if (q >= pe || !Py_UNICODE_ISDECIMAL(t[q]))
        return -1;
    b = q + 1;
    while (b < pe && Py_UNICODE_ISDECIMAL(t[b]))
        b++;
    while (b + 3 < pe && t[b] == ',' && Py_UNICODE_ISDECIMAL(t[b + 1])
           && Py_UNICODE_ISDECIMAL(t[b + 2]) && Py_UNICODE_ISDECIMAL(t[b + 3])) {
        prev_b = b;
        b += 4;
    }
    if (prev_b >= 0 && b < pe && Py_UNICODE_ISDECIMAL(t[b]))
        return prev_b;  /* ",1234": the last group backs off */
    if (b + 1 < pe && t[b] == '.' && Py_UNICODE_ISDECIMAL(t[b + 1])) {
        b += 2;
        while (b < pe && Py_UNICODE_ISDECIMAL(t[b]))
            b++;
    }
    return b;
}

/* _URL (re.I) matched at p: (?:https?|ftp)://[^\s"<>]+|www\.[^\s"<>]+ */
static Py_ssize_t
url_match(const Py_UCS4 *t, Py_ssize_t p, Py_ssize_t pe)
{
    Py_ssize_t q = -1, r;
    if (p + 4 <= pe && ci_eq(t[p], 'h') && ci_eq(t[p + 1], 't') && ci_eq(t[p + 2], 't')
            && ci_eq(t[p + 3], 'p')) {
        q = p + 4;
        if (q < pe && ci_eq(t[q], 's'))
            q++;
    } else if (p + 3 <= pe && ci_eq(t[p], 'f') && ci_eq(t[p + 1], 't')
               && ci_eq(t[p + 2], 'p')) {
        q = p + 3;
    }
    if (q >= 0) {
        if (q + 3 <= pe && t[q] == ':' && t[q + 1] == '/' && t[q + 2] == '/') {
            q += 3;
            r = q;
            while (r < pe && is_url_char(t[r]))
                r++;
            if (r > q)
                return r;
        }
        return -1;
    }
    if (p + 4 <= pe && ci_eq(t[p], 'w') && ci_eq(t[p + 1], 'w') && ci_eq(t[p + 2], 'w')
            && t[p + 3] == '.') {
        q = p + 4;
        r = q;
        while (r < pe && is_url_char(t[r]))
            r++;
        if (r > q)
            return r;
    }
    return -1;
}

/* ---- output ------------------------------------------------------------------------- */

typedef struct {
    Py_ssize_t s, e;
} Atom;

typedef struct {
    Py_ssize_t s, e;
    int joined;
} Chunk;

enum { Q_NONE = 0, Q_OPEN = 1, Q_CLOSE = 2 };

typedef struct {
    PyObject *src;
    const Py_UCS4 *t;
    PyObject *out;
    int last_quote;  /* the ``quotes`` list: only its last element is ever read */
    Atom *atoms;     /* scratch, one part at a time */
} Ctx;

/* Append (s, e, str); steals str (which may be NULL on error). */
static int
emit_obj(Ctx *c, Py_ssize_t s, Py_ssize_t e, PyObject *str)
{
    PyObject *a, *b, *tup;
    int r;
    if (str == NULL)
        return -1;
    tup = PyTuple_New(3);
    if (tup == NULL) {
        Py_DECREF(str);
        return -1;
    }
    PyTuple_SET_ITEM(tup, 2, str);
    a = PyLong_FromSsize_t(s);
    if (a == NULL) {
        Py_DECREF(tup);
        return -1;
    }
    PyTuple_SET_ITEM(tup, 0, a);
    b = PyLong_FromSsize_t(e);
    if (b == NULL) {
        Py_DECREF(tup);
        return -1;
    }
    PyTuple_SET_ITEM(tup, 1, b);
    r = PyList_Append(c->out, tup);
    Py_DECREF(tup);
    return r;
}

static int
emit_slice(Ctx *c, Py_ssize_t s, Py_ssize_t e)
{
    return emit_obj(c, s, e, PyUnicode_Substring(c->src, s, e));
}

static int
emit_buf(Ctx *c, Py_ssize_t s, Py_ssize_t e, const Py_UCS4 *buf, Py_ssize_t n)
{
    return emit_obj(c, s, e, PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, buf, n));
}

static int
emit_utf8(Ctx *c, Py_ssize_t s, Py_ssize_t e, const char *str)
{
    return emit_obj(c, s, e, PyUnicode_FromString(str));
}

/* _TRANSLATE.get(ch, ch) for the one-character text t[s:s+1]. */
static int
emit_translated(Ctx *c, Py_ssize_t s)
{
    Py_ssize_t k;
    for (k = 0; k < N_TRANSLATE; k++)
        if (TRANSLATE[k].ch == c->t[s])
            return emit_utf8(c, s, s + 1, TRANSLATE[k].to);
    return emit_slice(c, s, s + 1);
}

/* ---- _ChunkSplitter ------------------------------------------------------------------ */

typedef struct {
    Ctx *c;
    const Py_UCS4 *t;
    Atom *a;
    Py_ssize_t na;
    Py_ssize_t pe;   /* end of the part: the regexes see only the part */
    Py_UCS4 nc;      /* next_char, NO_CHAR for "" */
    int glued;
    DomainMemo dm;
} Splitter;

static inline int
valid(const Splitter *sp, Py_ssize_t j)
{
    return j >= 0 && j < sp->na;
}

static inline Py_ssize_t
alen(const Splitter *sp, Py_ssize_t j)
{
    return valid(sp, j) ? sp->a[j].e - sp->a[j].s : 0;
}

static inline Py_UCS4
first(const Splitter *sp, Py_ssize_t j)
{
    return sp->t[sp->a[j].s];
}

/* _is_word(self._at(j)) */
static inline int
atom_word(const Splitter *sp, Py_ssize_t j)
{
    return valid(sp, j) && is_wordch(first(sp, j));
}

/* self._text(j) == ch */
static inline int
atom_is(const Splitter *sp, Py_ssize_t j, Py_UCS4 ch)
{
    return alen(sp, j) == 1 && first(sp, j) == ch;
}

/* self._text(j) in APOSTROPHES */
static inline int
atom_apos(const Splitter *sp, Py_ssize_t j)
{
    return alen(sp, j) == 1 && is_apos_ch(first(sp, j));
}

static inline int
atom_lower_is(const Splitter *sp, Py_ssize_t j, const char *word)
{
    if (!valid(sp, j))
        return word[0] == '\0';
    return lower_is(sp->t, sp->a[j].s, sp->a[j].e, word);
}

static void
split_atoms(Splitter *sp, Py_ssize_t ps, Py_ssize_t pe)
{
    const Py_UCS4 *t = sp->t;
    Py_ssize_t p = ps, q, n = 0;
    while (p < pe) {
        Py_UCS4 ch = t[p];
        if ((ch == '.' || ch == '-') && p + 1 < pe && t[p + 1] == ch) {
            q = p + 2;
            while (q < pe && t[q] == ch)
                q++;
        } else if (is_punct(ch) || ch == '-') {
            q = p + 1;
        } else {
            q = p + 1;
            while (q < pe && is_wordch(t[q]))
                q++;
        }
        sp->a[n].s = p;
        sp->a[n].e = q;
        n++;
        p = q;
    }
    sp->na = n;
}

/* _match_at: the atom after a match ending at `end` (from atom i), or -1. */
static Py_ssize_t
atom_after(const Splitter *sp, Py_ssize_t end, Py_ssize_t i)
{
    Py_ssize_t j;
    if (end < 0)
        return -1;
    for (j = i; j < sp->na; j++) {
        if (sp->a[j].e == end)
            return j + 1;
        if (sp->a[j].e > end)
            break;
    }
    return -1;
}

static int
is_clitic(const Splitter *sp, Py_ssize_t j)
{
    char key[KEY_CAP];
    Py_ssize_t n;
    if (atom_word(sp, j + 2) || atom_apos(sp, j + 2))
        return 0;
    if (!valid(sp, j + 1))
        return 0;  /* "" is no clitic and not "t" */
    n = lower_key(sp->t, sp->a[j + 1].s, sp->a[j + 1].e, key);
    if (key_in(key, n, CLITICS))
        return 1;
    if (n == 1 && key[0] == 't' && valid(sp, j - 1)) {
        Py_UCS4 last = sp->t[sp->a[j - 1].e - 1];
        return last == 'n' || last == 'N';
    }
    return 0;
}

static Py_ssize_t
acronym(const Splitter *sp, Py_ssize_t i)
{
    Py_ssize_t j = i;
    while (alen(sp, j) == 1 && atom_word(sp, j) && atom_is(sp, j + 1, '.')
           && Py_UNICODE_ISALPHA(first(sp, j)))
        j += 2;
    return j - i >= 4 ? j : -1;
}

static Py_ssize_t
compound(const Splitter *sp, Py_ssize_t i)
{
    Py_ssize_t j = i + 1;
    while (atom_word(sp, j + 1)) {
        if (atom_is(sp, j, '&'))
            j += 2;
        else if (atom_apos(sp, j) && !is_clitic(sp, j))
            j += 2;
        else if (atom_is(sp, j, '-')
                 && lower_in(sp->t, sp->a[i].s, sp->a[i].e, HYPHEN_PREFIXES)
                 && Py_UNICODE_ISALNUM(first(sp, j + 1)))
            j += 2;
        else
            break;
    }
    return j;
}

/* "'" + self._text(j + 1), spanning atoms j and j + 1 (a clitic: at most two letters) */
static int
emit_clitic(Splitter *sp, Py_ssize_t j)
{
    Py_UCS4 buf[KEY_CAP + 2];
    Py_ssize_t s = sp->a[j + 1].s, e = sp->a[j + 1].e, k, n = 0;
    buf[n++] = '\'';
    for (k = s; k < e && n < KEY_CAP + 2; k++)
        buf[n++] = sp->t[k];
    return emit_buf(sp->c, sp->a[j].s, e, buf, n);
}

static int
keeps_period(const Splitter *sp, Py_ssize_t ws, Py_ssize_t we, Py_ssize_t j)
{
    if (valid(sp, j + 1)) {
        Py_UCS4 ch = first(sp, j + 1);
        return atom_word(sp, j + 1)
            || (alen(sp, j + 1) == 1 && (ch == ',' || ch == ';' || ch == ':'));
    }
    return final_period_stays(sp->t, ws, we, sp->nc);
}

/* _finish_word: the word t[start:atoms[j-1].e]; next atom index or -1 on error. */
static Py_ssize_t
finish_word(Splitter *sp, Py_ssize_t start, Py_ssize_t j)
{
    Py_ssize_t end = sp->a[j - 1].e;
    if (atom_apos(sp, j) && is_clitic(sp, j)) {
        if (atom_lower_is(sp, j + 1, "t")) {
            Py_UCS4 buf[3];
            if (end - start > 1 && emit_slice(sp->c, start, end - 1) < 0)
                return -1;
            buf[0] = sp->t[end - 1];
            buf[1] = '\'';
            buf[2] = first(sp, j + 1);
            if (emit_buf(sp->c, end - 1, sp->a[j + 1].e, buf, 3) < 0)
                return -1;
            return j + 2;
        }
        if (emit_slice(sp->c, start, end) < 0 || emit_clitic(sp, j) < 0)
            return -1;
        return j + 2;
    }
    if (atom_is(sp, j, '.') && keeps_period(sp, start, end, j)) {
        if (emit_slice(sp->c, start, sp->a[j].e) < 0)
            return -1;
        return j + 1;
    }
    if (emit_slice(sp->c, start, end) < 0)
        return -1;
    return j;
}

static Py_ssize_t
split_word(Splitter *sp, Py_ssize_t i)
{
    Py_ssize_t start = sp->a[i].s;
    Py_ssize_t j = acronym(sp, i);
    if (j >= 0) {
        if (emit_slice(sp->c, start, sp->a[j - 1].e) < 0)
            return -1;
        return j;
    }
    j = atom_after(sp, domain_match(sp->t, start, sp->pe, &sp->dm), i);
    if (j < 0)
        j = atom_after(sp, number_match(sp->t, start, sp->pe), i);
    if (j < 0)
        j = compound(sp, i);
    return finish_word(sp, start, j);
}

/* self._text(j) in OPENERS */
static int
atom_opener(const Splitter *sp, Py_ssize_t j)
{
    Py_ssize_t n = alen(sp, j), k, i;
    if (n == 0 || n >= OPENER_CAP)
        return 0;
    for (k = 0; k < N_OPENERS; k++) {
        for (i = 0; i < n && OPENERS[k][i] == sp->t[sp->a[j].s + i]; i++)
            ;
        if (i == n && OPENERS[k][n] == 0)
            return 1;
    }
    return 0;
}

static int
quote_kind(Splitter *sp, Py_ssize_t i)
{
    Py_UCS4 ch = first(sp, i);
    int kind;
    if (ch == 0x201C || ch == 0x201E)
        kind = Q_OPEN;
    else if (ch == 0x201D)
        kind = Q_CLOSE;
    else if (i == 0 && sp->glued)
        kind = Q_CLOSE;
    else if (i == 0 && sp->na > 1)
        kind = Q_OPEN;
    else if (i > 0)
        kind = atom_opener(sp, i - 1) ? Q_OPEN : Q_CLOSE;
    else
        kind = sp->c->last_quote == Q_OPEN ? Q_CLOSE : Q_OPEN;
    sp->c->last_quote = kind;
    return kind;
}

static Py_ssize_t
split_punct(Splitter *sp, Py_ssize_t i)
{
    Py_ssize_t s = sp->a[i].s, e = sp->a[i].e, n = e - s;
    Py_UCS4 ch = sp->t[s];
    if (n == 1 && is_currency(ch)) {
        Py_ssize_t amount = atom_after(sp, number_match(sp->t, s, sp->pe), i);
        if (amount >= 0)
            return finish_word(sp, s, amount);
    }
    if (n == 1 && is_dquote(ch)) {
        if (emit_utf8(sp->c, s, e, quote_kind(sp, i) == Q_OPEN ? "``" : "''") < 0)
            return -1;
    } else if (n >= 2 && ch == '.') {
        if (emit_utf8(sp->c, s, e, "...") < 0)
            return -1;
    } else if (n >= 2 && ch == '-') {
        if (emit_utf8(sp->c, s, e, "--") < 0)
            return -1;
    } else if (n == 1 && is_apos_ch(ch) && is_clitic(sp, i) && i > 0) {
        if (emit_clitic(sp, i) < 0)
            return -1;
        return i + 2;
    } else {
        if (emit_translated(sp->c, s) < 0)
            return -1;
    }
    return i + 1;
}

static int
split_part(Ctx *c, Py_ssize_t ps, Py_ssize_t pe, Py_UCS4 nc, int glued)
{
    Splitter sp;
    Py_ssize_t i = 0;
    sp.c = c;
    sp.t = c->t;
    sp.a = c->atoms;
    sp.pe = pe;
    sp.nc = nc;
    sp.glued = glued;
    memset(&sp.dm, 0, sizeof(sp.dm));
    split_atoms(&sp, ps, pe);
    while (i < sp.na) {
        i = atom_word(&sp, i) ? split_word(&sp, i) : split_punct(&sp, i);
        if (i < 0)
            return -1;
    }
    return 0;
}

/* ---- tokenize_text ------------------------------------------------------------------ */

/* _simple_chunk: 1 if handled, 0 if not that shape, -1 on error. */
static int
simple_chunk(Ctx *c, Py_ssize_t s, Py_ssize_t e, Py_UCS4 nc)
{
    const Py_UCS4 *t = c->t;
    Py_UCS4 last = t[e - 1];
    switch (last) {
    case ',': case ';': case ':': case '!': case '?': case ')': case '%': case '.':
        break;
    default:
        return 0;
    }
    if (e - s < 2 || !all_wordch(t, s, e - 1))
        return 0;
    if (last == '.' && final_period_stays(t, s, e - 1, nc))
        return emit_slice(c, s, e) < 0 ? -1 : 1;
    if (emit_slice(c, s, e - 1) < 0 || emit_slice(c, e - 1, e) < 0)
        return -1;
    return 1;
}

/* _split_urls + the splitting of the parts between URLs. */
static int
split_chunk(Ctx *c, Py_ssize_t s, Py_ssize_t e, Py_UCS4 nc)
{
    const Py_UCS4 *t = c->t;
    Py_ssize_t pos = s;
    while (pos < e) {
        Py_ssize_t p, ms = -1, me = -1, ue;
        for (p = pos; p < e; p++) {
            me = url_match(t, p, e);
            if (me >= 0) {
                ms = p;
                break;
            }
        }
        if (ms < 0)
            return split_part(c, pos, e, nc, pos > s);
        ue = me;
        while (ue > ms + 1 && is_url_trail(t[ue - 1]))
            ue--;
        if (ms > pos && split_part(c, pos, ms, t[ms], pos > s) < 0)
            return -1;
        if (emit_slice(c, ms, ue) < 0)
            return -1;
        pos = ue;
    }
    return 0;
}

static int
emit_joined(Ctx *c, Py_ssize_t s, Py_ssize_t e)
{
    Py_UCS4 *buf = PyMem_Malloc(sizeof(Py_UCS4) * (size_t)(e - s));
    Py_ssize_t k, n = 0;
    int r;
    if (buf == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (k = s; k < e; k++)
        if (c->t[k] != ' ' && c->t[k] != 0xA0)
            buf[n++] = c->t[k];
    r = emit_buf(c, s, e, buf, n);
    PyMem_Free(buf);
    return r;
}

/* _CHUNK.finditer + _join_initials (its _INITIALS_GAP pre-check only skips runs where no
 * join can happen, so joining always gives the same chunks). */
static Py_ssize_t
find_chunks(const Py_UCS4 *t, Py_ssize_t n, Chunk *ch)
{
    Py_ssize_t p = 0, nch = 0;
    while (p < n) {
        Py_ssize_t s, e;
        while (p < n && is_chunk_sep(t[p]))
            p++;
        if (p >= n)
            break;
        s = p;
        while (p < n && !is_chunk_sep(t[p]))
            p++;
        e = p;
        if (nch > 0 && e - s == 2 && t[s + 1] == '.') {
            Chunk *prev = &ch[nch - 1];
            if (Py_UNICODE_ISUPPER(t[s]) && Py_UNICODE_ISALPHA(t[s])
                    && (prev->joined || is_initials(t, prev->s, prev->e))
                    && Py_UNICODE_ISUPPER(t[prev->s]) && s - prev->e == 1
                    && (t[prev->e] == ' ' || t[prev->e] == 0xA0)) {
                prev->e = e;
                prev->joined = 1;
                continue;
            }
        }
        ch[nch].s = s;
        ch[nch].e = e;
        ch[nch].joined = 0;
        nch++;
    }
    return nch;
}

static int
tokenize(Ctx *c, Py_ssize_t n, Chunk *chunks)
{
    const Py_UCS4 *t = c->t;
    Py_ssize_t nch = find_chunks(t, n, chunks), k;
    for (k = 0; k < nch; k++) {
        Py_ssize_t s = chunks[k].s, e = chunks[k].e;
        Py_UCS4 nc;
        int r;
        if (chunks[k].joined) {
            if (emit_joined(c, s, e) < 0)
                return -1;
            continue;
        }
        if (all_wordch(t, s, e) || (e - s > 2 && is_initials(t, s, e))) {
            if (emit_slice(c, s, e) < 0)
                return -1;
            continue;
        }
        if (e - s == 1 && !is_dquote(t[s])) {
            if (emit_translated(c, s) < 0)
                return -1;
            continue;
        }
        nc = k + 1 < nch ? t[chunks[k + 1].s] : NO_CHAR;
        r = simple_chunk(c, s, e, nc);
        if (r < 0)
            return -1;
        if (r)
            continue;
        if (split_chunk(c, s, e, nc) < 0)
            return -1;
    }
    return 0;
}

static PyObject *
ptb_tokenize_text(PyObject *module, PyObject *text)
{
    Ctx c;
    Py_UCS4 *t;
    Chunk *chunks;
    void *block;
    Py_ssize_t n;
    int r;
    if (!PyUnicode_Check(text)) {
        PyErr_Format(PyExc_TypeError, "tokenize_text() argument must be str, not %.200s",
                     Py_TYPE(text)->tp_name);
        return NULL;
    }
    n = PyUnicode_GetLength(text);
    if (n < 0)
        return NULL;
    c.out = PyList_New(0);
    if (c.out == NULL)
        return NULL;
    if (n == 0)
        return c.out;
    /* one block: atoms, chunks, then the code points */
    if ((size_t)n > PY_SSIZE_T_MAX / (sizeof(Atom) + sizeof(Chunk) + sizeof(Py_UCS4))) {
        Py_DECREF(c.out);
        return PyErr_NoMemory();
    }
    block = PyMem_Malloc((sizeof(Atom) + sizeof(Chunk) + sizeof(Py_UCS4)) * (size_t)n);
    if (block == NULL) {
        Py_DECREF(c.out);
        return PyErr_NoMemory();
    }
    c.atoms = (Atom *)block;
    chunks = (Chunk *)(c.atoms + n);
    t = (Py_UCS4 *)(chunks + n);
    if (PyUnicode_AsUCS4(text, t, n, 0) == NULL) {
        PyMem_Free(block);
        Py_DECREF(c.out);
        return NULL;
    }
    c.src = text;
    c.t = t;
    c.last_quote = Q_NONE;
    r = tokenize(&c, n, chunks);
    PyMem_Free(block);
    if (r < 0) {
        Py_DECREF(c.out);
        return NULL;
    }
    return c.out;
}

static PyMethodDef ptb_methods[] = {
    {"tokenize_text", ptb_tokenize_text, METH_O,
     "tokenize_text(text: str) -> list[tuple[int, int, str]]\n\n"
     "PTB-like words of a run of plain text, as (start, end, token) character spans;\n"
     "the same as filters.nq.text_tokens.tokenize_text."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef ptb_module = {
    PyModuleDef_HEAD_INIT,
    "filters.nq._ptb",
    "C version of filters.nq.text_tokens.tokenize_text (same output).",
    -1,
    ptb_methods,
    NULL, NULL, NULL, NULL,
};

static int
add_object(PyObject *module, const char *name, PyObject *value)  /* steals value */
{
    int r = value ? PyModule_AddObjectRef(module, name, value) : -1;
    Py_XDECREF(value);
    return r;
}

/* Add str (a new reference, NULL on error) to the new frozenset *set; clears it on error. */
static void
set_add(PyObject **set, PyObject *str)
{
    if (str == NULL || PySet_Add(*set, str) < 0)
        Py_CLEAR(*set);
    Py_XDECREF(str);
}

/* The tables the splitter uses, as module attributes (copies: frozensets of the words and
 * characters, OPENERS, TRANSLATE as sorted pairs), which tests/filters/nq/test_c_tables.py
 * compares with the Python sets. */
static int
add_tables(PyObject *module)
{
    Py_ssize_t t, k;
    PyObject *set, *pairs;
    for (t = 0; WORD_TABLES[t].name; t++) {
        const char *const *word;
        set = PyFrozenSet_New(NULL);
        for (word = WORD_TABLES[t].words; set && *word; word++)
            set_add(&set, PyUnicode_FromString(*word));
        if (add_object(module, WORD_TABLES[t].name, set) < 0)
            return -1;
    }
    for (t = 0; CHAR_TABLES[t].name; t++) {
        set = PyFrozenSet_New(NULL);
        for (k = 0; set && k < CHAR_TABLES[t].n; k++)
            set_add(&set, PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND,
                                                    &CHAR_TABLES[t].set[k], 1));
        if (add_object(module, CHAR_TABLES[t].name, set) < 0)
            return -1;
    }
    set = PyFrozenSet_New(NULL);
    for (k = 0; set && k < N_OPENERS; k++) {
        Py_ssize_t n = 0;
        while (n < OPENER_CAP && OPENERS[k][n])
            n++;
        set_add(&set, PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, OPENERS[k], n));
    }
    if (add_object(module, "OPENERS", set) < 0)
        return -1;
    pairs = PyTuple_New(N_TRANSLATE);
    for (k = 0; pairs && k < N_TRANSLATE; k++) {
        PyObject *pair = Py_BuildValue("(Ns)", PyUnicode_FromOrdinal((int)TRANSLATE[k].ch),
                                       TRANSLATE[k].to);
        if (pair == NULL)
            Py_CLEAR(pairs);
        else
            PyTuple_SET_ITEM(pairs, k, pair);
    }
    return add_object(module, "TRANSLATE", pairs);
}

PyMODINIT_FUNC
PyInit__ptb(void)
{
    PyObject *module;
    Py_ssize_t k;
    for (k = 0; k < N_PUNCT; k++)
        if (PUNCT[k] < 256)
            punct_latin1[PUNCT[k] >> 6] |= (uint64_t)1 << (PUNCT[k] & 63);
    module = PyModule_Create(&ptb_module);
    if (module != NULL && add_tables(module) < 0)
        Py_CLEAR(module);
    return module;
}
