/* filters.nq._walker: the HTML walker of filters/nq/tokens.py in C.
 *
 * scan(html, split, region_of, words, token_type, region_type) -> (tokens, regions) returns
 * exactly what ``w = _Walker(html, region_of, words); (w.walk(), w.regions)`` returns; the
 * Python module stays the reference (tests/filters/nq/test_walker_c.py compares the two).
 * The regular expressions of tokens.py (_MARKUP, _COMMENT_END, _RAW_END, _HAS_CLASS_OR_ID,
 * _ATTR, _ENTITY) are hand-written scanners over the UTF-8 bytes with the same matches.
 * Entity values (html.unescape) and attribute values with an entity or a non-ASCII byte
 * (decode 'replace', html.unescape, str.strip, str.split) go through Python, as in the
 * reference; plain ASCII values are stripped and split in C with the same white space.
 * Each call keeps its state in a Walker struct; the only globals are constants made at
 * import (html.unescape, tag token strings). region_of is called once per (tag name, raw
 * attributes) of a page: it is pure, and the reference caches the parsed attributes.
 * The tag, id and class tables are rendered from the sets of tokens.py between the
 * GENERATED markers by filters/nq/gen_c_tables.py (never edit them by hand); the module
 * exports copies of them (KNOWN_TAGS, TOKEN_TAGS, ..., SKIP_TEXT_IDS) for the tests.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* BEGIN GENERATED: tags (python -m filters.nq.gen_c_tables --write) */
/* The tag sets of filters/nq/tokens.py as flag bits; KNOWN: every tag in one of
 * them or named by the walker's code, sorted, N_<TAG> its index. */
#define F_TOKEN (1u << 0)  /* TOKEN_TAGS */
#define F_CELL (1u << 1)  /* CELL_TAGS */
#define F_VOID (1u << 2)  /* VOID_TAGS */
#define F_INLINE (1u << 3)  /* INLINE_TAGS */
#define F_RAW (1u << 4)  /* RAW_TEXT_TAGS */
#define F_SKIPTAG (1u << 5)  /* SKIP_TEXT_TAGS */
#define F_CLOSES_P (1u << 6)  /* CLOSES_P */
#define F_HEADTAG (1u << 7)  /* HEAD_TAGS */
#define F_HEADING (1u << 8)  /* HEADINGS */
#define F_DSCOPE (1u << 9)  /* _DEFAULT_SCOPE */
#define F_TSCOPE (1u << 10)  /* _TABLE_SCOPE */
#define F_TPART (1u << 11)  /* _TABLE_PARTS */
#define F_LISTSTOP (1u << 12)  /* _LIST_ITEM_STOP */
#define N_FLAGS 13
static const char *const FLAG_SETS[N_FLAGS] = {
    "TOKEN_TAGS", "CELL_TAGS", "VOID_TAGS", "INLINE_TAGS", "RAW_TEXT_TAGS", "SKIP_TEXT_TAGS",
    "CLOSES_P", "HEAD_TAGS", "HEADINGS", "DEFAULT_SCOPE", "TABLE_SCOPE", "TABLE_PARTS",
    "LIST_ITEM_STOP",
};
enum {
    N_A,
    N_ABBR,
    N_ACRONYM,
    N_ADDRESS,
    N_APPLET,
    N_AREA,
    N_ARTICLE,
    N_ASIDE,
    N_B,
    N_BASE,
    N_BASEFONT,
    N_BDI,
    N_BDO,
    N_BGSOUND,
    N_BIG,
    N_BLOCKQUOTE,
    N_BODY,
    N_BR,
    N_CAPTION,
    N_CENTER,
    N_CITE,
    N_CODE,
    N_COL,
    N_DATA,
    N_DD,
    N_DEL,
    N_DETAILS,
    N_DFN,
    N_DIALOG,
    N_DIR,
    N_DIV,
    N_DL,
    N_DT,
    N_EM,
    N_EMBED,
    N_FIELDSET,
    N_FIGCAPTION,
    N_FIGURE,
    N_FONT,
    N_FOOTER,
    N_FORM,
    N_FRAME,
    N_H1,
    N_H2,
    N_H3,
    N_H4,
    N_H5,
    N_H6,
    N_HEAD,
    N_HEADER,
    N_HGROUP,
    N_HR,
    N_HTML,
    N_I,
    N_IFRAME,
    N_IMAGE,
    N_IMG,
    N_INPUT,
    N_INS,
    N_KBD,
    N_KEYGEN,
    N_LABEL,
    N_LI,
    N_LINK,
    N_LISTING,
    N_MAIN,
    N_MARK,
    N_MARQUEE,
    N_MENU,
    N_META,
    N_NAV,
    N_NOBR,
    N_NOEMBED,
    N_NOFRAMES,
    N_NOSCRIPT,
    N_OBJECT,
    N_OL,
    N_P,
    N_PARAM,
    N_PRE,
    N_Q,
    N_RP,
    N_RT,
    N_RUBY,
    N_S,
    N_SAMP,
    N_SCRIPT,
    N_SECTION,
    N_SMALL,
    N_SOURCE,
    N_SPAN,
    N_STRIKE,
    N_STRONG,
    N_STYLE,
    N_SUB,
    N_SUMMARY,
    N_SUP,
    N_TABLE,
    N_TBODY,
    N_TD,
    N_TEMPLATE,
    N_TEXTAREA,
    N_TFOOT,
    N_TH,
    N_THEAD,
    N_TIME,
    N_TITLE,
    N_TR,
    N_TRACK,
    N_TT,
    N_U,
    N_UL,
    N_VAR,
    N_WBR,
    N_XMP,
    N_KNOWN
};
static const struct { const char *name; unsigned flags; } KNOWN[N_KNOWN] = {
    {"a", F_INLINE},
    {"abbr", F_INLINE},
    {"acronym", F_INLINE},
    {"address", F_CLOSES_P},
    {"applet", F_DSCOPE},
    {"area", F_VOID},
    {"article", F_CLOSES_P | F_LISTSTOP},
    {"aside", F_CLOSES_P | F_LISTSTOP},
    {"b", F_INLINE},
    {"base", F_VOID | F_HEADTAG},
    {"basefont", F_VOID},
    {"bdi", F_INLINE},
    {"bdo", F_INLINE},
    {"bgsound", F_VOID},
    {"big", F_INLINE},
    {"blockquote", F_CLOSES_P | F_LISTSTOP},
    {"body", F_LISTSTOP},
    {"br", F_VOID},
    {"caption", F_DSCOPE | F_TPART | F_LISTSTOP},
    {"center", F_CLOSES_P},
    {"cite", F_INLINE},
    {"code", F_INLINE},
    {"col", F_VOID},
    {"data", F_INLINE},
    {"dd", F_TOKEN | F_CLOSES_P},
    {"del", F_INLINE},
    {"details", F_CLOSES_P},
    {"dfn", F_INLINE},
    {"dialog", F_CLOSES_P},
    {"dir", F_CLOSES_P},
    {"div", F_CLOSES_P},
    {"dl", F_TOKEN | F_CLOSES_P | F_LISTSTOP},
    {"dt", F_TOKEN | F_CLOSES_P},
    {"em", F_INLINE},
    {"embed", F_VOID},
    {"fieldset", F_CLOSES_P},
    {"figcaption", F_CLOSES_P},
    {"figure", F_CLOSES_P | F_LISTSTOP},
    {"font", F_INLINE},
    {"footer", F_CLOSES_P},
    {"form", F_CLOSES_P | F_LISTSTOP},
    {"frame", F_VOID},
    {"h1", F_TOKEN | F_CLOSES_P | F_HEADING | F_LISTSTOP},
    {"h2", F_TOKEN | F_CLOSES_P | F_HEADING | F_LISTSTOP},
    {"h3", F_TOKEN | F_CLOSES_P | F_HEADING | F_LISTSTOP},
    {"h4", F_TOKEN | F_CLOSES_P | F_HEADING | F_LISTSTOP},
    {"h5", F_TOKEN | F_CLOSES_P | F_HEADING | F_LISTSTOP},
    {"h6", F_TOKEN | F_CLOSES_P | F_HEADING | F_LISTSTOP},
    {"head", F_HEADTAG},
    {"header", F_CLOSES_P},
    {"hgroup", F_CLOSES_P},
    {"hr", F_VOID | F_CLOSES_P},
    {"html", F_DSCOPE | F_TSCOPE | F_LISTSTOP},
    {"i", F_INLINE},
    {"iframe", F_RAW},
    {"image", F_VOID},
    {"img", F_VOID},
    {"input", F_VOID},
    {"ins", F_INLINE},
    {"kbd", F_INLINE},
    {"keygen", F_VOID},
    {"label", F_INLINE},
    {"li", F_TOKEN | F_CLOSES_P},
    {"link", F_VOID | F_HEADTAG},
    {"listing", F_CLOSES_P},
    {"main", F_CLOSES_P},
    {"mark", F_INLINE},
    {"marquee", F_DSCOPE},
    {"menu", F_CLOSES_P | F_LISTSTOP},
    {"meta", F_VOID | F_HEADTAG},
    {"nav", F_CLOSES_P | F_LISTSTOP},
    {"nobr", F_INLINE},
    {"noembed", F_RAW},
    {"noframes", F_RAW},
    {"noscript", F_RAW | F_HEADTAG},
    {"object", F_DSCOPE},
    {"ol", F_TOKEN | F_CLOSES_P | F_LISTSTOP},
    {"p", F_TOKEN | F_CLOSES_P},
    {"param", F_VOID},
    {"pre", F_CLOSES_P},
    {"q", F_INLINE},
    {"rp", F_INLINE},
    {"rt", F_INLINE},
    {"ruby", F_INLINE},
    {"s", F_INLINE},
    {"samp", F_INLINE},
    {"script", F_RAW | F_HEADTAG},
    {"section", F_CLOSES_P | F_LISTSTOP},
    {"small", F_INLINE},
    {"source", F_VOID},
    {"span", F_INLINE},
    {"strike", F_INLINE},
    {"strong", F_INLINE},
    {"style", F_RAW | F_HEADTAG},
    {"sub", F_INLINE},
    {"summary", F_CLOSES_P},
    {"sup", F_INLINE | F_SKIPTAG},
    {"table", F_TOKEN | F_CLOSES_P | F_DSCOPE | F_TSCOPE | F_LISTSTOP},
    {"tbody", F_TPART},
    {"td", F_TOKEN | F_CELL | F_DSCOPE | F_TPART | F_LISTSTOP},
    {"template", F_SKIPTAG | F_HEADTAG | F_DSCOPE | F_TSCOPE},
    {"textarea", F_RAW},
    {"tfoot", F_TPART},
    {"th", F_TOKEN | F_CELL | F_DSCOPE | F_TPART | F_LISTSTOP},
    {"thead", F_TPART},
    {"time", F_INLINE},
    {"title", F_RAW | F_HEADTAG},
    {"tr", F_TOKEN | F_TPART | F_LISTSTOP},
    {"track", F_VOID},
    {"tt", F_INLINE},
    {"u", F_INLINE},
    {"ul", F_TOKEN | F_CLOSES_P | F_LISTSTOP},
    {"var", F_INLINE},
    {"wbr", F_VOID | F_INLINE},
    {"xmp", F_RAW | F_CLOSES_P},
};
/* END GENERATED: tags */

/* ---- constants (built once at module init, never changed) ---------------------------- */

static PyObject *UNESCAPE;                 /* html.unescape */
static PyObject *OPEN_TOKEN[N_KNOWN];      /* "<P>" for token tags */
static PyObject *CLOSE_TOKEN[N_KNOWN];     /* "</P>" */
static PyObject *STR_CLASS, *STR_ID, *STR_COLSPAN, *STR_STRIP;

/* ---- small helpers ------------------------------------------------------------------- */

static inline int is_ws(unsigned char c)  /* bytes \s and bytes.isspace(): ASCII white space */
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static inline int is_alpha(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static inline int is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

static inline int is_alnum_ascii(unsigned char c) { return is_alpha(c) || is_digit(c); }

static inline int is_hex(unsigned char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static inline int is_name_char(unsigned char c)
{
    return is_alnum_ascii(c) || c == ':' || c == '_' || c == '-';
}

static inline unsigned char lower(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') ? (unsigned char)(c + 32) : c;
}

/* Code point of the (valid) UTF-8 sequence at s; *len gets its length. */
static inline Py_UCS4 utf8_decode(const unsigned char *s, int *len)
{
    unsigned char c = s[0];
    if (c < 0x80) { *len = 1; return c; }
    if (c < 0xE0) { *len = 2; return ((Py_UCS4)(c & 0x1F) << 6) | (s[1] & 0x3F); }
    if (c < 0xF0) {
        *len = 3;
        return ((Py_UCS4)(c & 0x0F) << 12) | ((Py_UCS4)(s[1] & 0x3F) << 6) | (s[2] & 0x3F);
    }
    *len = 4;
    return ((Py_UCS4)(c & 0x07) << 18) | ((Py_UCS4)(s[1] & 0x3F) << 12)
           | ((Py_UCS4)(s[2] & 0x3F) << 6) | (s[3] & 0x3F);
}

/* Code point of the last character of the (valid, non-empty) UTF-8 text s[0:n]. */
static inline Py_UCS4 utf8_last(const unsigned char *s, Py_ssize_t n)
{
    Py_ssize_t i = n - 1;
    int len;
    while (i > 0 && (s[i] & 0xC0) == 0x80)
        i--;
    return utf8_decode(s + i, &len);
}

static int utf8_isspace(const unsigned char *s, Py_ssize_t n)  /* str.isspace() */
{
    if (n == 0)
        return 0;
    Py_ssize_t i = 0;
    while (i < n) {
        int len;
        Py_UCS4 c = utf8_decode(s + i, &len);
        if (!Py_UNICODE_ISSPACE(c))
            return 0;
        i += len;
    }
    return 1;
}

/* Make room for `need` items in *arr (capacity *cap); -1 with MemoryError. */
static int grow(void **arr, Py_ssize_t *cap, Py_ssize_t need, size_t item)
{
    if (need <= *cap)
        return 0;
    Py_ssize_t n = *cap ? *cap : 16;
    while (n < need)
        n *= 2;
    void *p = PyMem_Realloc(*arr, (size_t)n * item);
    if (!p) {
        PyErr_NoMemory();
        return -1;
    }
    *arr = p;
    *cap = n;
    return 0;
}

#define GROW(arr, cap, need) (grow((void **)&(arr), &(cap), (need), sizeof(*(arr))) < 0)

static uint64_t hash_bytes(const unsigned char *s, Py_ssize_t n, uint64_t h)
{
    Py_ssize_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t v;
        memcpy(&v, s + i, 8);
        h = (h ^ v) * 0x9E3779B97F4A7C15ULL;
        h ^= h >> 29;
    }
    for (; i < n; i++) {
        h ^= s[i];
        h *= 1099511628211ULL;
    }
    h ^= h >> 32;
    return h;
}

/* FNV-1a of the ASCII-lower-cased tag name. */
static uint64_t name_hash(const unsigned char *s, Py_ssize_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        h ^= lower(s[i]);
        h *= 1099511628211ULL;
    }
    return h;
}

/* ---- per-call state ------------------------------------------------------------------ */

typedef struct {
    const unsigned char *lower;  /* lower-case name (owned when `owned`) */
    int owned;
    Py_ssize_t len;
    unsigned flags;
    PyObject *str;         /* lazily created Python str of the name */
    Py_ssize_t open;       /* open_count */
} Name;

typedef struct {
    int name;
    int skip;
    Py_ssize_t start;
    PyObject *region;      /* owned, or NULL for None */
} Open;

typedef struct {
    Py_ssize_t c0, b0, b1;  /* char start in the run, byte span in the HTML */
    Py_ssize_t off, len;    /* UTF-8 text in the run buffer */
    int atomic, ascii;
} Piece;

typedef struct {
    uint64_t hash;
    int name;               /* -1: empty slot */
    Py_ssize_t off, len;    /* raw attributes in the HTML */
    PyObject *attrs;        /* tag_attrs dict (owned) */
    int skip;               /* skips_text(name, attrs) */
    int region_done;
    PyObject *region;       /* owned; NULL when None */
    PyObject *colspan;      /* owned colspan token; NULL until computed or when none */
    int colspan_done;
} AttrEntry;

typedef struct {
    const unsigned char *d;
    Py_ssize_t n;
    PyObject *split, *region_of, *token_type, *region_type;
    int words, has_region_of;
    PyObject *tokens, *regions;
    /* names */
    Name *names;
    Py_ssize_t nnames, names_cap;
    int *name_slots;        /* open addressing: name index + 1, 0 empty */
    Py_ssize_t name_slots_cap;
    /* stack */
    Open *stack;
    Py_ssize_t depth, stack_cap;
    int skip, in_head, title_done;
    /* run */
    unsigned char *buf;
    Py_ssize_t blen, buf_cap, chars;
    Piece *pieces;
    Py_ssize_t npieces, pieces_cap;
    Py_UCS4 last_char;
    Py_ssize_t *runoff;     /* char -> offset in buf, built when a word needs it */
    /* attribute cache */
    AttrEntry *cache;
    Py_ssize_t cache_cap, cache_used;
    /* entity -> html.unescape(entity), for the first MAX_ENTITIES distinct ones */
    PyObject *entities;
} Walker;

#define MAX_ENTITIES 4096

/* ---- names --------------------------------------------------------------------------- */

static int name_insert_slot(Walker *w, int index)
{
    Name *nm = &w->names[index];
    uint64_t h = name_hash(nm->lower, nm->len);
    Py_ssize_t mask = w->name_slots_cap - 1;
    Py_ssize_t i = (Py_ssize_t)(h & (uint64_t)mask);
    while (w->name_slots[i])
        i = (i + 1) & mask;
    w->name_slots[i] = index + 1;
    return 0;
}

static int name_add(Walker *w, const unsigned char *lower_name, Py_ssize_t len, unsigned flags,
                    int known)
{
    if (GROW(w->names, w->names_cap, w->nnames + 1))
        return -1;
    unsigned char *copy = NULL;
    if (!known) {
        copy = PyMem_Malloc((size_t)len + 1);
        if (!copy) {
            PyErr_NoMemory();
            return -1;
        }
        memcpy(copy, lower_name, (size_t)len);
        copy[len] = 0;
    }
    int index = (int)w->nnames++;
    Name *nm = &w->names[index];
    nm->lower = known ? lower_name : copy;
    nm->owned = !known;
    nm->len = len;
    nm->flags = flags;
    nm->str = NULL;
    nm->open = 0;
    if ((w->nnames) * 2 > w->name_slots_cap) {
        Py_ssize_t cap = w->name_slots_cap ? w->name_slots_cap * 2 : 512;
        int *slots = PyMem_Calloc((size_t)cap, sizeof(int));
        if (!slots) {
            PyErr_NoMemory();
            return -1;
        }
        PyMem_Free(w->name_slots);
        w->name_slots = slots;
        w->name_slots_cap = cap;
        for (int k = 0; k < (int)w->nnames; k++)
            name_insert_slot(w, k);
    } else {
        name_insert_slot(w, index);
    }
    return index;
}

/* Index of the tag name data[s:e] (ASCII, lower-cased), added when new; -1 on error. */
static int name_id(Walker *w, Py_ssize_t s, Py_ssize_t e)
{
    const unsigned char *p = w->d + s;
    Py_ssize_t len = e - s;
    uint64_t h = name_hash(p, len);
    Py_ssize_t mask = w->name_slots_cap - 1;
    Py_ssize_t i = (Py_ssize_t)(h & (uint64_t)mask);
    for (;;) {
        int k = w->name_slots[i];
        if (!k)
            break;
        Name *nm = &w->names[k - 1];
        if (nm->len == len) {
            Py_ssize_t j = 0;
            while (j < len && nm->lower[j] == lower(p[j]))
                j++;
            if (j == len)
                return k - 1;
        }
        i = (i + 1) & mask;
    }
    unsigned char small[64];
    unsigned char *tmp = len <= 64 ? small : PyMem_Malloc((size_t)len);
    if (!tmp) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t j = 0; j < len; j++)
        tmp[j] = lower(p[j]);
    int index = name_add(w, tmp, len, 0, 0);
    if (tmp != small)
        PyMem_Free(tmp);
    return index;
}

static PyObject *name_str(Walker *w, int name)  /* borrowed */
{
    Name *nm = &w->names[name];
    if (!nm->str)
        nm->str = PyUnicode_FromStringAndSize((const char *)nm->lower, nm->len);
    return nm->str;
}

#define FLAGS(w, name) ((w)->names[(name)].flags)

/* ---- the tag scanner (_scan_tags, _MARKUP, _COMMENT_END, _RAW_END) ------------------- */

typedef struct {
    Py_ssize_t last;        /* data.rfind(b">") + 1 */
    Py_ssize_t restart;
    int has_restart, in_pass;
    Py_ssize_t start, endpos, p, m_end;
} Scanner;

typedef struct {
    int name;               /* -1: comment, doctype or processing instruction */
    int closing;
    Py_ssize_t attrs, attrs_end, start, end;
} Tag;

static const unsigned char *find_byte(const unsigned char *d, Py_ssize_t from, Py_ssize_t to,
                                      unsigned char c)
{
    if (from >= to)
        return NULL;
    return memchr(d + from, c, (size_t)(to - from));
}

/* _COMMENT_END.search(data, pos): end of the match, or len(data). */
static Py_ssize_t comment_end(const unsigned char *d, Py_ssize_t n, Py_ssize_t pos)
{
    Py_ssize_t p = pos;
    while (p + 2 < n) {
        const unsigned char *q = find_byte(d, p, n - 2, '-');
        if (!q)
            break;
        p = q - d;
        if (d[p + 1] == '-') {
            if (d[p + 2] == '>')
                return p + 3;
            if (d[p + 2] == '!' && p + 3 < n && d[p + 3] == '>')
                return p + 4;
        }
        p++;
    }
    return n;
}

/* _RAW_END[name].search(data, pos).start(), or len(data). */
static Py_ssize_t raw_end(Walker *w, int name, Py_ssize_t pos)
{
    const unsigned char *d = w->d;
    Py_ssize_t n = w->n;
    const Name *nm = &w->names[name];
    Py_ssize_t need = 2 + nm->len + 1;
    Py_ssize_t p = pos;
    while (p + need <= n) {
        const unsigned char *q = find_byte(d, p, n - need + 1, '<');
        if (!q)
            break;
        p = q - d;
        if (d[p + 1] == '/') {
            Py_ssize_t j = 0;
            while (j < nm->len && lower(d[p + 2 + j]) == nm->lower[j])
                j++;
            if (j == nm->len) {
                unsigned char c = d[p + 2 + j];
                if (is_ws(c) || c == '/' || c == '>')
                    return p;
            }
        }
        p++;
    }
    return n;
}

/* _MARKUP matched at p (d[p] == '<') within [p, lim): 0 no match, 1 tag, 2 other markup,
 * 3 "<!--". */
static int match_at(const unsigned char *d, Py_ssize_t p, Py_ssize_t lim, Tag *t,
                    Py_ssize_t *name_s, Py_ssize_t *name_e)
{
    Py_ssize_t q = p + 1;
    const unsigned char *g;
    if (q >= lim)
        return 0;
    unsigned char c = d[q];
    Py_ssize_t ns;
    if (c == '!') {
        if (q + 2 < lim && d[q + 1] == '-' && d[q + 2] == '-') {
            t->start = p;
            t->end = q + 3;
            return 3;
        }
        g = find_byte(d, q + 1, lim, '>');
        if (!g)
            return 0;
        t->start = p;
        t->end = g - d + 1;
        return 2;
    }
    if (c == '?') {
        g = find_byte(d, q + 1, lim, '>');
        if (!g)
            return 0;
        t->start = p;
        t->end = g - d + 1;
        return 2;
    }
    if (c == '/') {
        if (q + 1 >= lim)
            return 0;
        unsigned char c2 = d[q + 1];
        if (!is_alpha(c2)) {
            if (c2 == '>')
                return 0;
            g = find_byte(d, q + 2, lim, '>');
            if (!g)
                return 0;
            t->start = p;
            t->end = g - d + 1;
            return 2;
        }
        t->closing = 1;
        ns = q + 1;
    } else if (is_alpha(c)) {
        t->closing = 0;
        ns = q;
    } else {
        return 0;
    }
    Py_ssize_t ne = ns + 1;
    while (ne < lim && is_name_char(d[ne]))
        ne++;
    *name_s = ns;
    *name_e = ne;
    t->start = p;
    t->attrs = ne;
    /* the first alternative: quoted values after '=', no stray quote */
    Py_ssize_t a = ne;
    while (a < lim) {
        unsigned char ch = d[a];
        if (ch == '>') {
            t->attrs_end = a;
            t->end = a + 1;
            return 1;
        }
        if (ch == '"' || ch == '\'')
            break;
        if (ch == '=') {
            Py_ssize_t b = a + 1;
            while (b < lim && is_ws(d[b]))
                b++;
            if (b < lim && (d[b] == '"' || d[b] == '\'')) {
                g = find_byte(d, b + 1, lim, d[b]);
                if (g) {
                    a = g - d + 1;
                    continue;
                }
            }
            a++;
            continue;
        }
        while (a < lim && d[a] != '>' && d[a] != '"' && d[a] != '\'' && d[a] != '=')
            a++;
    }
    /* the fallback alternative: anything up to the first '>' */
    g = find_byte(d, ne, lim, '>');
    if (!g)
        return 0;
    t->attrs_end = g - d;
    t->end = g - d + 1;
    return 1;
}

/* Next markup of _scan_tags: 1 with *t set, 0 at the end, -1 on error. */
static int next_tag(Walker *w, Scanner *sc, Tag *t)
{
    const unsigned char *d = w->d;
    Py_ssize_t n = w->n;
    for (;;) {
        if (!sc->in_pass) {
            if (!sc->has_restart)
                return 0;
            sc->start = sc->restart;
            sc->has_restart = 0;
            sc->m_end = -1;
            sc->endpos = sc->last > sc->start ? sc->last : sc->start;
            sc->p = sc->start;
            sc->in_pass = 1;
        }
        int kind = 0;
        Py_ssize_t name_s = 0, name_e = 0;
        while (sc->p < sc->endpos) {
            const unsigned char *q = find_byte(d, sc->p, sc->endpos, '<');
            if (!q) {
                sc->p = sc->endpos;
                break;
            }
            Py_ssize_t p = q - d;
            kind = match_at(d, p, sc->endpos, t, &name_s, &name_e);
            if (kind)
                break;
            sc->p = p + 1;
        }
        if (!kind) {  /* finditer exhausted: an unterminated comment runs to the end */
            sc->in_pass = 0;
            Py_ssize_t from = sc->m_end < 0 ? sc->start : sc->m_end;
            Py_ssize_t c = -1;
            for (Py_ssize_t p = from; p + 4 <= n; p++) {
                const unsigned char *q = find_byte(d, p, n - 3, '<');
                if (!q)
                    break;
                p = q - d;
                if (d[p + 1] == '!' && d[p + 2] == '-' && d[p + 3] == '-') {
                    c = p;
                    break;
                }
            }
            if (c >= 0) {
                t->name = -1;
                t->closing = 0;
                t->attrs = t->attrs_end = 0;
                t->start = c;
                t->end = n;
                return 1;
            }
            continue;
        }
        sc->m_end = t->end;
        sc->p = t->end;
        if (kind >= 2) {
            t->name = -1;
            t->closing = 0;
            t->attrs = t->attrs_end = 0;
            if (kind == 3) {
                t->end = comment_end(d, n, t->end);
                sc->restart = t->end;
                sc->has_restart = 1;
                sc->in_pass = 0;
            }
            return 1;
        }
        int name = name_id(w, name_s, name_e);
        if (name < 0)
            return -1;
        t->name = name;
        if (!t->closing && (FLAGS(w, name) & F_RAW)) {
            sc->restart = raw_end(w, name, t->end);
            sc->has_restart = 1;
            sc->in_pass = 0;
        }
        return 1;
    }
}

/* ---- attributes (tag_attrs, skips_text, _HAS_CLASS_OR_ID) --------------------------- */

static int ci_equal(const unsigned char *s, const char *word, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++)
        if (lower(s[i]) != (unsigned char)word[i])
            return 0;
    return 1;
}

/* _HAS_CLASS_OR_ID.search(attrs): (?:class|id)\s*= , case-insensitive. The name ends where
 * the white space before an '=' starts (names are letters), so look back from each '='. */
static int has_class_or_id(const unsigned char *d, Py_ssize_t a0, Py_ssize_t a1)
{
    Py_ssize_t e = a0;
    while (e < a1) {
        const unsigned char *q = memchr(d + e, '=', (size_t)(a1 - e));
        if (!q)
            return 0;
        Py_ssize_t j = q - d;
        while (j > a0 && is_ws(d[j - 1]))
            j--;
        if ((j - a0 >= 5 && ci_equal(d + j - 5, "class", 5))
            || (j - a0 >= 2 && ci_equal(d + j - 2, "id", 2)))
            return 1;
        e = q - d + 1;
    }
    return 0;
}

static int ends_with_slash(const unsigned char *d, Py_ssize_t a0, Py_ssize_t a1)
{
    Py_ssize_t e = a1;  /* attrs.rstrip().endswith(b"/") */
    while (e > a0 && is_ws(d[e - 1]))
        e--;
    return e > a0 && d[e - 1] == '/';
}

static int contains_colspan(const unsigned char *d, Py_ssize_t a0, Py_ssize_t a1)
{
    for (Py_ssize_t i = a0; i + 7 <= a1; i++)
        if (lower(d[i]) == 'c' && ci_equal(d + i, "colspan", 7))
            return 1;
    return 0;
}

static inline int attr_prefix(unsigned char c)  /* [\s"'/] */
{
    return is_ws(c) || c == '"' || c == '\'' || c == '/';
}

/* The _ATTR match with its key at k in a[0:n]: returns the match end or -1; key and value. */
static Py_ssize_t attr_match(const unsigned char *a, Py_ssize_t n, Py_ssize_t k, PyObject **key,
                             Py_ssize_t *v0, Py_ssize_t *v1)
{
    Py_ssize_t j;
    if (k + 5 <= n && ci_equal(a + k, "class", 5)) {
        *key = STR_CLASS;
        j = k + 5;
    } else if (k + 2 <= n && ci_equal(a + k, "id", 2)) {
        *key = STR_ID;
        j = k + 2;
    } else if (k + 7 <= n && ci_equal(a + k, "colspan", 7)) {
        *key = STR_COLSPAN;
        j = k + 7;
    } else {
        return -1;
    }
    while (j < n && is_ws(a[j]))
        j++;
    if (j >= n || a[j] != '=')
        return -1;
    j++;
    while (j < n && is_ws(a[j]))
        j++;
    if (j >= n)
        return -1;
    if (a[j] == '"' || a[j] == '\'') {
        const unsigned char *q = memchr(a + j + 1, a[j], (size_t)(n - j - 1));
        if (!q)
            return -1;
        *v0 = j + 1;
        *v1 = q - a;
        return q - a + 1;
    }
    if (a[j] == '>')
        return -1;
    Py_ssize_t e = j;
    while (e < n && !is_ws(a[e]) && a[e] != '"' && a[e] != '\'' && a[e] != '>')
        e++;
    *v0 = j;
    *v1 = e;
    return e;
}

/* Py_UNICODE_ISSPACE for ASCII: what str.strip() and str.split() remove there */
static inline int is_ascii_space(unsigned char c)
{
    return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20);
}

static int ascii_run(const unsigned char *s, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++)
        if (s[i] & 0x80)
            return 0;
    return 1;
}

/* tag_attrs(attrs): {class, id, colspan}, first occurrence wins, unescaped and stripped. */
static PyObject *tag_attrs(const unsigned char *a, Py_ssize_t n)
{
    PyObject *found = PyDict_New();
    if (!found)
        return NULL;
    /* findall: a match at p has its key at p + 1 after a [\s"'/], or at 0 when p == 0
     * (tried first); so try the keys (c... or i...) in order, from p + 1 after a match. */
    Py_ssize_t k = 0;
    while (k < n) {
        unsigned char c = lower(a[k]);
        if ((c != 'c' && c != 'i') || (k > 0 && !attr_prefix(a[k - 1]))) {
            k++;
            continue;
        }
        PyObject *key = NULL;
        Py_ssize_t v0 = 0, v1 = 0;
        Py_ssize_t end = attr_match(a, n, k, &key, &v0, &v1);
        if (end < 0) {
            k++;
            continue;
        }
        k = end + 1;
        int has = PyDict_Contains(found, key);
        if (has < 0)
            goto error;
        if (has)
            continue;
        if (!memchr(a + v0, '&', (size_t)(v1 - v0)) && ascii_run(a + v0, v1 - v0)) {
            /* most values: ASCII, no entity; str.strip() strips these white spaces */
            while (v0 < v1 && is_ascii_space(a[v0]))
                v0++;
            while (v1 > v0 && is_ascii_space(a[v1 - 1]))
                v1--;
            PyObject *plain = PyUnicode_DecodeASCII((const char *)a + v0, v1 - v0, NULL);
            if (!plain)
                goto error;
            int rc = PyDict_SetItem(found, key, plain);
            Py_DECREF(plain);
            if (rc < 0)
                goto error;
            continue;
        }
        PyObject *value = PyUnicode_DecodeUTF8((const char *)a + v0, v1 - v0, "replace");
        if (!value)
            goto error;
        if (memchr(a + v0, '&', (size_t)(v1 - v0))) {
            PyObject *u = PyObject_CallOneArg(UNESCAPE, value);
            Py_DECREF(value);
            if (!u)
                goto error;
            value = u;
        }
        PyObject *stripped = PyObject_CallMethodNoArgs(value, STR_STRIP);
        Py_DECREF(value);
        if (!stripped)
            goto error;
        int rc = PyDict_SetItem(found, key, stripped);
        Py_DECREF(stripped);
        if (rc < 0)
            goto error;
    }
    return found;
error:
    Py_DECREF(found);
    return NULL;
}

/* BEGIN GENERATED: skip_text (python -m filters.nq.gen_c_tables --write) */
/* The ids and classes of filters/nq/tokens.py whose elements skip (or keep) text;
 * WORD_TABLES: their export names. */
static const char *const SKIP_IDS[] = {
    "footer-icons", "footer-places", "mw-navigation", "p-lang-label", "siteSub", NULL,
};
static const char *const KEEP_IDS[] = {
    "p-lang", NULL,
};
static const char *const SKIP_CLASSES[] = {
    "collapseButton", "navbar", "noprint", NULL,
};
static const struct { const char *name; const char *const *words; } WORD_TABLES[] = {
    {"KEEP_TEXT_IDS", KEEP_IDS},
    {"SKIP_TEXT_CLASSES", SKIP_CLASSES},
    {"SKIP_TEXT_IDS", SKIP_IDS},
    {NULL, NULL},
};
/* END GENERATED: skip_text */

/* skips_text(name, attrs); -2 on error */
static int skips_text(Walker *w, int name, PyObject *attrs)
{
    if (FLAGS(w, name) & F_SKIPTAG)
        return 1;
    PyObject *id = PyDict_GetItemWithError(attrs, STR_ID);
    if (!id && PyErr_Occurred())
        return -2;
    if (id) {
        for (const char *const *keep = KEEP_IDS; *keep; keep++)
            if (PyUnicode_CompareWithASCIIString(id, *keep) == 0)
                return -1;
        for (const char *const *skip = SKIP_IDS; *skip; skip++)
            if (PyUnicode_CompareWithASCIIString(id, *skip) == 0)
                return 1;
    }
    PyObject *cls = PyDict_GetItemWithError(attrs, STR_CLASS);
    if (!cls)
        return PyErr_Occurred() ? -2 : 0;
    if (PyUnicode_IS_ASCII(cls)) {  /* cls.split() in C */
        const unsigned char *c = PyUnicode_1BYTE_DATA(cls);
        Py_ssize_t n = PyUnicode_GET_LENGTH(cls), i = 0;
        while (i < n) {
            while (i < n && is_ascii_space(c[i]))
                i++;
            Py_ssize_t j = i;
            while (j < n && !is_ascii_space(c[j]))
                j++;
            for (const char *const *skip = SKIP_CLASSES; j > i && *skip; skip++)
                if ((Py_ssize_t)strlen(*skip) == j - i
                    && memcmp(c + i, *skip, (size_t)(j - i)) == 0)
                    return 1;
            i = j;
        }
        return 0;
    }
    PyObject *parts = PyUnicode_Split(cls, NULL, -1);
    if (!parts)
        return -2;
    int skip = 0;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(parts) && !skip; i++) {
        PyObject *part = PyList_GET_ITEM(parts, i);
        for (const char *const *c = SKIP_CLASSES; *c; c++)
            if (PyUnicode_CompareWithASCIIString(part, *c) == 0)
                skip = 1;
    }
    Py_DECREF(parts);
    return skip;
}

static int cache_insert(AttrEntry *table, Py_ssize_t cap, AttrEntry *entry)
{
    Py_ssize_t mask = cap - 1;
    Py_ssize_t i = (Py_ssize_t)(entry->hash & (uint64_t)mask);
    while (table[i].name >= 0)
        i = (i + 1) & mask;
    table[i] = *entry;
    return (int)i;
}

/* The cached attributes of tag `name` with raw attributes data[a0:a1]; NULL on error. */
static AttrEntry *attr_entry(Walker *w, int name, Py_ssize_t a0, Py_ssize_t a1)
{
    const unsigned char *d = w->d;
    uint64_t h = hash_bytes(d + a0, a1 - a0, 1469598103934665603ULL ^ (uint64_t)(unsigned)name);
    if (w->cache_cap) {
        Py_ssize_t mask = w->cache_cap - 1;
        Py_ssize_t i = (Py_ssize_t)(h & (uint64_t)mask);
        for (;;) {
            AttrEntry *e = &w->cache[i];
            if (e->name < 0)
                break;
            if (e->hash == h && e->name == name && e->len == a1 - a0
                && memcmp(d + e->off, d + a0, (size_t)(a1 - a0)) == 0)
                return e;
            i = (i + 1) & mask;
        }
    }
    if ((w->cache_used + 1) * 2 > w->cache_cap) {
        Py_ssize_t cap = w->cache_cap ? w->cache_cap * 2 : 64;
        AttrEntry *table = PyMem_Malloc((size_t)cap * sizeof(AttrEntry));
        if (!table) {
            PyErr_NoMemory();
            return NULL;
        }
        for (Py_ssize_t i = 0; i < cap; i++)
            table[i].name = -1;
        for (Py_ssize_t i = 0; i < w->cache_cap; i++)
            if (w->cache[i].name >= 0)
                cache_insert(table, cap, &w->cache[i]);
        PyMem_Free(w->cache);
        w->cache = table;
        w->cache_cap = cap;
    }
    AttrEntry entry;
    entry.hash = h;
    entry.name = name;
    entry.off = a0;
    entry.len = a1 - a0;
    entry.region_done = 0;
    entry.region = NULL;
    entry.colspan = NULL;
    entry.colspan_done = 0;
    entry.attrs = tag_attrs(d + a0, a1 - a0);
    if (!entry.attrs)
        return NULL;
    entry.skip = skips_text(w, name, entry.attrs);
    if (entry.skip == -2) {
        Py_DECREF(entry.attrs);
        return NULL;
    }
    w->cache_used++;
    return &w->cache[cache_insert(w->cache, w->cache_cap, &entry)];
}

/* ---- text runs (_Run) ---------------------------------------------------------------- */

static int make_token(Walker *w, PyObject *word, Py_ssize_t b0, Py_ssize_t b1, int html)
{
    PyTypeObject *tp = (PyTypeObject *)w->token_type;
    PyObject *start = PyLong_FromSsize_t(b0);
    if (!start)
        return -1;
    PyObject *end = PyLong_FromSsize_t(b1);
    if (!end) {
        Py_DECREF(start);
        return -1;
    }
    PyObject *token = tp->tp_alloc(tp, 4);
    if (!token) {
        Py_DECREF(start);
        Py_DECREF(end);
        return -1;
    }
    Py_INCREF(word);
    PyTuple_SET_ITEM(token, 0, word);
    PyTuple_SET_ITEM(token, 1, start);
    PyTuple_SET_ITEM(token, 2, end);
    PyObject *flag = html ? Py_True : Py_False;
    Py_INCREF(flag);
    PyTuple_SET_ITEM(token, 3, flag);
    /* A token of a str and ints can be in no reference cycle: like the tuples the collector
     * untracks itself, it is not tracked (thousands per page; the values are the same). */
    if (PyUnicode_CheckExact(word))
        PyObject_GC_UnTrack(token);
    int rc = PyList_Append(w->tokens, token);
    Py_DECREF(token);
    return rc;
}

/* _Run._piece: text (UTF-8) mapped to data[b0:b1]; empty text adds nothing. */
static int run_piece(Walker *w, const unsigned char *text, Py_ssize_t len, Py_ssize_t b0,
                     Py_ssize_t b1, int atomic)
{
    if (len == 0)
        return 0;
    if (GROW(w->pieces, w->pieces_cap, w->npieces + 1))
        return -1;
    if (GROW(w->buf, w->buf_cap, w->blen + len))
        return -1;
    Piece *p = &w->pieces[w->npieces++];
    Py_ssize_t chars = 0;
    int ascii = 1;
    for (Py_ssize_t i = 0; i < len; i++) {
        chars += (text[i] & 0xC0) != 0x80;
        ascii &= text[i] < 0x80;
    }
    p->c0 = w->chars;
    p->b0 = b0;
    p->b1 = b1;
    p->off = w->blen;
    p->len = len;
    p->atomic = atomic;
    p->ascii = ascii;
    memcpy(w->buf + w->blen, text, (size_t)len);
    w->blen += len;
    w->chars += chars;
    w->last_char = ascii ? text[len - 1] : utf8_last(text, len);
    return 0;
}

static const unsigned char WORD_BREAK_UTF8[] = {0xE2, 0x80, 0x8B};  /* U+200B */

/* _ENTITY.match at text[i] (text[i] == '&'): match length, or 0. */
static Py_ssize_t entity_at(const unsigned char *t, Py_ssize_t i, Py_ssize_t n)
{
    Py_ssize_t j = i + 1, k;
    if (j >= n)
        return 0;
    if (t[j] == '#') {
        j++;
        if (j < n && is_digit(t[j])) {
            k = j;
            while (k < n && k - j < 7 && is_digit(t[k]))
                k++;
        } else if (j + 1 < n && (t[j] == 'x' || t[j] == 'X') && is_hex(t[j + 1])) {
            j++;
            k = j;
            while (k < n && k - j < 6 && is_hex(t[k]))
                k++;
        } else {
            return 0;
        }
    } else if (is_alpha(t[j])) {
        k = j + 1;
        while (k < n && k - j < 32 && is_alnum_ascii(t[k]))
            k++;
        if (k - j < 2)
            return 0;
    } else {
        return 0;
    }
    if (k < n && t[k] == ';')
        k++;
    return k - i;
}

/* html.unescape(group), a new reference (NULL on error): memoised per page, since a few
 * entities (&quot; &amp; &#160; &#8211;) recur thousands of times on table- and list-heavy
 * pages and each call runs a regex substitution in Python. At most MAX_ENTITIES distinct
 * entities are kept, so a page of distinct entities costs no more memory than the cap. */
static PyObject *unescape_entity(Walker *w, PyObject *group)
{
    if (!w->entities && !(w->entities = PyDict_New()))
        return NULL;
    PyObject *value = PyDict_GetItemWithError(w->entities, group);
    if (value) {
        Py_INCREF(value);
        return value;
    }
    if (PyErr_Occurred())
        return NULL;
    value = PyObject_CallOneArg(UNESCAPE, group);
    if (value && PyDict_GET_SIZE(w->entities) < MAX_ENTITIES
        && PyDict_SetItem(w->entities, group, value) < 0)
        Py_CLEAR(value);
    return value;
}

/* _Run.add: the text node data[start:end]. */
static int run_add(Walker *w, Py_ssize_t start, Py_ssize_t end)
{
    const unsigned char *t = w->d + start;
    Py_ssize_t n = end - start;
    if (w->npieces == 0 && utf8_isspace(t, n))
        return 0;
    if (w->npieces) {
        int len;
        Py_UCS4 first = utf8_decode(t, &len);
        if (Py_UNICODE_ISALNUM(first) && Py_UNICODE_ISALNUM(w->last_char)
            && run_piece(w, WORD_BREAK_UTF8, 3, start, start, 1) < 0)
            return -1;
    }
    const unsigned char *amp = memchr(t, '&', (size_t)n);
    if (!amp)
        return run_piece(w, t, n, start, end, 0);
    Py_ssize_t pos = 0, i = amp - t;
    while (i < n) {
        Py_ssize_t m = entity_at(t, i, n);
        if (!m) {
            i++;
        } else {
            PyObject *group = PyUnicode_FromStringAndSize((const char *)t + i, m);
            if (!group)
                return -1;
            PyObject *value = unescape_entity(w, group);
            if (!value) {
                Py_DECREF(group);
                return -1;
            }
            int same = PyObject_RichCompareBool(value, group, Py_EQ);
            Py_DECREF(group);
            if (same < 0) {
                Py_DECREF(value);
                return -1;
            }
            if (!same) {
                Py_ssize_t vlen;
                const char *v = PyUnicode_Check(value) ? PyUnicode_AsUTF8AndSize(value, &vlen)
                                                       : NULL;
                if (!v) {
                    if (!PyErr_Occurred())
                        PyErr_SetString(PyExc_TypeError, "html.unescape returned no str");
                    Py_DECREF(value);
                    return -1;
                }
                if (run_piece(w, t + pos, i - pos, start + pos, start + i, 0) < 0
                    || run_piece(w, (const unsigned char *)v, vlen, start + i, start + i + m,
                                 1) < 0) {
                    Py_DECREF(value);
                    return -1;
                }
                pos = i + m;
            }
            Py_DECREF(value);
            i += m;
        }
        const unsigned char *next = i < n ? memchr(t + i, '&', (size_t)(n - i)) : NULL;
        if (!next)
            break;
        i = next - t;
    }
    return run_piece(w, t + pos, n - pos, start + pos, end, 0);
}

static void run_reset(Walker *w)
{
    w->npieces = 0;
    w->blen = 0;
    w->chars = 0;
    w->last_char = 0;
}

static int span_item(PyObject *item, Py_ssize_t *s, Py_ssize_t *e, PyObject **word)
{
    PyObject *tuple;
    if (PyTuple_CheckExact(item)) {
        tuple = item;
        Py_INCREF(tuple);
    } else {
        tuple = PySequence_Tuple(item);
        if (!tuple)
            return -1;
    }
    if (PyTuple_GET_SIZE(tuple) != 3) {
        PyErr_Format(PyExc_ValueError, "split must give (start, end, word) triples, not %zd "
                     "values", PyTuple_GET_SIZE(tuple));
        Py_DECREF(tuple);
        return -1;
    }
    *s = PyLong_AsSsize_t(PyTuple_GET_ITEM(tuple, 0));
    if (*s == -1 && PyErr_Occurred()) {
        Py_DECREF(tuple);
        return -1;
    }
    *e = PyLong_AsSsize_t(PyTuple_GET_ITEM(tuple, 1));
    if (*e == -1 && PyErr_Occurred()) {
        Py_DECREF(tuple);
        return -1;
    }
    *word = PyTuple_GET_ITEM(tuple, 2);
    Py_INCREF(*word);
    Py_DECREF(tuple);
    return 0;
}

static Py_ssize_t bisect_piece(Walker *w, Py_ssize_t c)  /* bisect_right(starts, c) - 1 */
{
    Py_ssize_t lo = 0, hi = w->npieces;
    while (lo < hi) {
        Py_ssize_t mid = (lo + hi) / 2;
        if (c < w->pieces[mid].c0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo - 1;
}

/* _Run._mapped's byte of (the end of, when after) character c of the run, in piece k. */
static int byte_of(Walker *w, Py_ssize_t k, Py_ssize_t c, int after, Py_ssize_t *out)
{
    const Piece *p = &w->pieces[k];
    if (p->atomic) {
        *out = after ? p->b1 : p->b0;
        return 0;
    }
    if (p->ascii) {
        *out = p->b0 + c + after - p->c0;
        return 0;
    }
    if (!w->runoff) {
        w->runoff = PyMem_Malloc((size_t)(w->chars + 1) * sizeof(Py_ssize_t));
        if (!w->runoff) {
            PyErr_NoMemory();
            return -1;
        }
        Py_ssize_t ch = 0;
        for (Py_ssize_t i = 0; i < w->blen; i++)
            if ((w->buf[i] & 0xC0) != 0x80)
                w->runoff[ch++] = i;
        w->runoff[ch] = w->blen;
    }
    *out = p->b0 + w->runoff[c + after] - p->off;
    return 0;
}

/* _Run.tokens: split the run's text and map the word spans to bytes. */
static int run_tokens(Walker *w)
{
    if (utf8_isspace(w->buf, w->blen)) {
        run_reset(w);
        return 0;
    }
    PyObject *run_text;
    int ascii = 1;
    for (Py_ssize_t k = 0; k < w->npieces; k++)
        ascii &= w->pieces[k].ascii;
    if (ascii) {
        run_text = PyUnicode_New(w->blen, 127);
        if (run_text)
            memcpy(PyUnicode_1BYTE_DATA(run_text), w->buf, (size_t)w->blen);
    } else {
        run_text = PyUnicode_DecodeUTF8((const char *)w->buf, w->blen, NULL);
    }
    if (!run_text)
        return -1;
    PyObject *spans = PyObject_CallOneArg(w->split, run_text);
    Py_DECREF(run_text);
    if (!spans)
        return -1;
    PyObject *seq = PySequence_Fast(spans, "split must return a sequence of spans");
    Py_DECREF(spans);
    if (!seq)
        return -1;
    int fast = w->npieces == 1 && !w->pieces[0].atomic && ascii;
    int rc = 0;
    /* size and item read again each time, the item held: converting an item that is not
     * a tuple runs Python code, which may change the list split returned */
    for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE(seq) && rc == 0; k++) {
        Py_ssize_t s, e, b0, b1;
        PyObject *word, *item = PySequence_Fast_GET_ITEM(seq, k);
        Py_INCREF(item);
        rc = span_item(item, &s, &e, &word);
        Py_DECREF(item);
        if (rc < 0)
            break;
        if (fast) {
            b0 = w->pieces[0].b0 + s;
            b1 = w->pieces[0].b0 + e;
        } else {
            if (s < 0 || s > w->chars || e < 1 || e > w->chars) {
                PyErr_Format(PyExc_ValueError, "split gave the span (%zd, %zd) outside a "
                             "text of %zd characters", s, e, w->chars);
                Py_DECREF(word);
                rc = -1;
                break;
            }
            if (byte_of(w, bisect_piece(w, s), s, 0, &b0) < 0
                || byte_of(w, bisect_piece(w, e - 1), e - 1, 1, &b1) < 0) {
                Py_DECREF(word);
                rc = -1;
                break;
            }
        }
        rc = make_token(w, word, b0, b1, 0);
        Py_DECREF(word);
    }
    Py_DECREF(seq);
    PyMem_Free(w->runoff);
    w->runoff = NULL;
    run_reset(w);
    return rc;
}

static int flush(Walker *w)
{
    return w->npieces ? run_tokens(w) : 0;
}

static int text(Walker *w, Py_ssize_t start, Py_ssize_t end)
{
    if (end > start && w->words && !w->skip && !w->in_head)
        return run_add(w, start, end);
    return 0;
}

/* ---- the walker (_Walker) ------------------------------------------------------------ */

static int close_el(Walker *w, Open *el, Py_ssize_t end)
{
    w->names[el->name].open--;
    if (el->skip)
        w->skip -= el->skip;
    if (!el->region)
        return 0;
    int truth = PyObject_IsTrue(el->region);
    int rc = truth < 0 ? -1 : 0;
    if (truth > 0) {
        PyObject *region = PyObject_CallFunction(w->region_type, "Onn", el->region,
                                                 el->start, end);
        if (!region || PyList_Append(w->regions, region) < 0)
            rc = -1;
        Py_XDECREF(region);
    }
    Py_CLEAR(el->region);
    return rc;
}

static int pop(Walker *w, Py_ssize_t start, Py_ssize_t end)
{
    Open el = w->stack[--w->depth];
    if (FLAGS(w, el.name) & F_TOKEN) {
        if (flush(w) < 0 || make_token(w, CLOSE_TOKEN[el.name], start, end, 1) < 0) {
            Py_XDECREF(el.region);
            return -1;
        }
    }
    return close_el(w, &el, end);
}

static Open remove_at(Walker *w, Py_ssize_t k)
{
    Open el = w->stack[k];
    memmove(&w->stack[k], &w->stack[k + 1], (size_t)(w->depth - k - 1) * sizeof(Open));
    w->depth--;
    return el;
}

/* _find: index of the open element an end tag closes, within its scope; -1 if none. */
static Py_ssize_t find(Walker *w, int name)
{
    if (!w->names[name].open)
        return -1;
    unsigned flags = FLAGS(w, name);
    unsigned scope = (flags & F_TPART) || name == N_TABLE ? F_TSCOPE : F_DSCOPE;
    int list = name == N_LI;
    for (Py_ssize_t k = w->depth - 1; k >= 0; k--) {
        int open = w->stack[k].name;
        if (open == name)
            return k;
        if ((FLAGS(w, open) & scope) || (list && (open == N_UL || open == N_OL)))
            return -1;
    }
    return -1;
}

static int pop_to(Walker *w, Py_ssize_t k, Py_ssize_t at)
{
    if (flush(w) < 0)
        return -1;
    while (w->depth > k)
        if (pop(w, at, at) < 0)
            return -1;
    return 0;
}

static int push_open(Walker *w, int name, int skip, Py_ssize_t start, PyObject *region)
{
    if (GROW(w->stack, w->stack_cap, w->depth + 1)) {
        Py_XDECREF(region);
        return -1;
    }
    Open *el = &w->stack[w->depth++];
    el->name = name;
    el->skip = skip;
    el->start = start;
    el->region = region;
    w->names[name].open++;
    w->skip += skip;
    return 0;
}

static int push(Walker *w, int name, Py_ssize_t a0, Py_ssize_t a1, Py_ssize_t start)
{
    PyObject *region = NULL;
    int skip;
    if (a1 > a0 && has_class_or_id(w->d, a0, a1)) {
        AttrEntry *entry = attr_entry(w, name, a0, a1);
        if (!entry)
            return -1;
        skip = entry->skip;
        if (skip < 0 && !w->skip)
            skip = 0;
        if (w->has_region_of && PyDict_GET_SIZE(entry->attrs)) {
            if (!entry->region_done) {
                PyObject *nm = name_str(w, name);
                if (!nm)
                    return -1;
                PyObject *label = PyObject_CallFunctionObjArgs(w->region_of, nm, entry->attrs,
                                                               NULL);
                if (!label)
                    return -1;
                if (label == Py_None)
                    Py_DECREF(label);
                else
                    entry->region = label;
                entry->region_done = 1;
            }
            region = entry->region;
            Py_XINCREF(region);
        }
    } else {
        skip = (FLAGS(w, name) & F_SKIPTAG) ? 1 : 0;
    }
    return push_open(w, name, skip, start, region);
}

static int start_inline(Walker *w, const Tag *t)
{
    w->in_head = 0;
    int has_attrs = t->attrs_end > t->attrs;
    if ((FLAGS(w, t->name) & F_SKIPTAG)
        || (has_attrs && has_class_or_id(w->d, t->attrs, t->attrs_end))) {
        if (push(w, t->name, t->attrs, t->attrs_end, t->start) < 0)
            return -1;
    } else if (push_open(w, t->name, 0, -1, NULL) < 0) {
        return -1;
    }
    if (has_attrs && ends_with_slash(w->d, t->attrs, t->attrs_end))
        return pop(w, t->end, t->end);
    return 0;
}

static int end_inline(Walker *w, int name, Py_ssize_t end)
{
    if (w->depth && w->stack[w->depth - 1].name == name) {
        Open el = w->stack[--w->depth];
        return close_el(w, &el, end);
    }
    Py_ssize_t k = find(w, name);
    if (k >= 0) {
        Open el = remove_at(w, k);
        return close_el(w, &el, end);
    }
    return 0;
}

static int close_list_item(Walker *w, int a, int b, Py_ssize_t at)
{
    if (!w->names[a].open && !w->names[b].open)
        return 0;
    for (Py_ssize_t k = w->depth - 1; k >= 0; k--) {
        int open = w->stack[k].name;
        if (open == a || open == b)
            return pop_to(w, k, at);
        if (FLAGS(w, open) & F_LISTSTOP)
            return 0;
    }
    return 0;
}

static int close_table_part(Walker *w, int name, Py_ssize_t at)
{
    if (!w->names[N_TABLE].open)
        return 0;
    for (Py_ssize_t k = w->depth - 1; k >= 0; k--) {
        int open = w->stack[k].name;
        int stop;
        if (name == N_TD || name == N_TH)
            stop = open == N_TR;
        else if (name == N_TR)
            stop = open == N_TBODY || open == N_THEAD || open == N_TFOOT;
        else
            stop = 0;
        if ((FLAGS(w, open) & F_TSCOPE) || stop)
            return pop_to(w, k + 1, at);
    }
    return 0;
}

static int implied_end_tags(Walker *w, int name, Py_ssize_t at)
{
    unsigned flags = FLAGS(w, name);
    if (flags & F_CLOSES_P) {
        Py_ssize_t k = find(w, N_P);
        if (k >= 0 && pop_to(w, k, at) < 0)
            return -1;
    }
    if ((flags & F_HEADING) && w->depth
        && (FLAGS(w, w->stack[w->depth - 1].name) & F_HEADING)
        && pop_to(w, w->depth - 1, at) < 0)
        return -1;
    if (name == N_LI)
        return close_list_item(w, N_LI, N_LI, at);
    if (name == N_DD || name == N_DT)
        return close_list_item(w, N_DD, N_DT, at);
    if (name == N_TR || name == N_TBODY || name == N_THEAD || name == N_TFOOT
        || (flags & F_CELL))
        return close_table_part(w, name, at);
    return 0;
}

/* html_token_text(name, attrs, False), appended as a token. */
static int open_token(Walker *w, const Tag *t)
{
    int name = t->name;
    if ((FLAGS(w, name) & F_CELL) && contains_colspan(w->d, t->attrs, t->attrs_end)) {
        AttrEntry *entry = attr_entry(w, name, t->attrs, t->attrs_end);
        if (!entry)
            return -1;
        if (!entry->colspan_done) {
            PyObject *colspan = PyDict_GetItemWithError(entry->attrs, STR_COLSPAN);
            if (!colspan && PyErr_Occurred())
                return -1;
            int truth = colspan ? PyObject_IsTrue(colspan) : 0;
            if (truth < 0)
                return -1;
            if (truth) {
                /* %S, not %U: region_of may have put any object in the (shared) dict */
                entry->colspan = PyUnicode_FromFormat("<%s colspan=\"%S\">",
                                                      name == N_TD ? "Td" : "Th", colspan);
                if (!entry->colspan)
                    return -1;
            }
            entry->colspan_done = 1;
        }
        if (entry->colspan)
            return make_token(w, entry->colspan, t->start, t->end, 1);
    }
    return make_token(w, OPEN_TOKEN[name], t->start, t->end, 1);
}

/* _raw_text: step over script/style/...; the first <title> outside the body gives words. */
static Py_ssize_t raw_text(Walker *w, const Tag *t)
{
    Py_ssize_t content_end = raw_end(w, t->name, t->end);
    if (t->name == N_TITLE && !w->title_done && !w->names[N_BODY].open) {
        w->title_done = 1;
        if (flush(w) < 0)
            return -1;
        int was_in_head = w->in_head;
        w->in_head = 0;
        if (text(w, t->end, content_end) < 0 || flush(w) < 0)
            return -1;
        w->in_head = was_in_head;
    }
    return content_end;
}

/* _start_tag: the position the walk goes on from, or -1 on error. */
static Py_ssize_t start_tag(Walker *w, const Tag *t)
{
    int name = t->name;
    unsigned flags = FLAGS(w, name);
    if (flags & F_RAW)
        return raw_text(w, t);
    if (name == N_HEAD)
        w->in_head = 1;
    else if (!(flags & F_HEADTAG))
        w->in_head = 0;
    if (!(flags & F_INLINE) && flush(w) < 0)
        return -1;
    if (flags & F_VOID)
        return t->end;
    if (implied_end_tags(w, name, t->start) < 0
        || push(w, name, t->attrs, t->attrs_end, t->start) < 0)
        return -1;
    if ((flags & F_TOKEN) && open_token(w, t) < 0)
        return -1;
    if (ends_with_slash(w->d, t->attrs, t->attrs_end) && pop(w, t->end, t->end) < 0)
        return -1;
    return t->end;
}

static int end_tag(Walker *w, const Tag *t)
{
    int name = t->name;
    if (name == N_BR)
        return flush(w);
    if (name == N_HEAD)
        w->in_head = 0;
    Py_ssize_t k = find(w, name);
    if (k < 0)
        return 0;
    if (FLAGS(w, name) & F_INLINE) {
        Open el = remove_at(w, k);
        return close_el(w, &el, t->end);
    }
    if (flush(w) < 0)
        return -1;
    while (w->depth > k + 1)
        if (pop(w, t->start, t->start) < 0)
            return -1;
    return pop(w, t->start, t->end);
}

static int walk(Walker *w)
{
    Scanner sc;
    memset(&sc, 0, sizeof(sc));
    sc.has_restart = 1;
    sc.restart = 0;
    Py_ssize_t last = w->n;
    while (last > 0 && w->d[last - 1] != '>')
        last--;
    sc.last = last;
    Py_ssize_t pos = 0;
    Tag t;
    for (;;) {
        int got = next_tag(w, &sc, &t);
        if (got < 0)
            return -1;
        if (!got)
            break;
        if (t.start > pos && w->words && !w->skip && !w->in_head
            && run_add(w, pos, t.start) < 0)
            return -1;
        pos = t.end;
        if (t.name < 0)
            continue;
        unsigned flags = FLAGS(w, t.name);
        int rc;
        if ((flags & F_INLINE) && !(flags & F_VOID)) {
            rc = t.closing ? end_inline(w, t.name, t.end) : start_inline(w, &t);
        } else if (t.closing) {
            rc = end_tag(w, &t);
        } else {
            pos = start_tag(w, &t);
            rc = pos < 0 ? -1 : 0;
        }
        if (rc < 0)
            return -1;
    }
    if (text(w, pos, w->n) < 0 || flush(w) < 0)
        return -1;
    while (w->depth)
        if (pop(w, w->n, w->n) < 0)
            return -1;
    return 0;
}

static void walker_free(Walker *w)
{
    Py_XDECREF(w->entities);
    for (Py_ssize_t i = 0; i < w->nnames; i++) {
        if (w->names[i].owned)
            PyMem_Free((void *)w->names[i].lower);
        Py_XDECREF(w->names[i].str);
    }
    PyMem_Free(w->names);
    PyMem_Free(w->name_slots);
    for (Py_ssize_t i = 0; i < w->depth; i++)
        Py_XDECREF(w->stack[i].region);
    PyMem_Free(w->stack);
    PyMem_Free(w->buf);
    PyMem_Free(w->pieces);
    PyMem_Free(w->runoff);
    for (Py_ssize_t i = 0; i < w->cache_cap; i++) {
        if (w->cache[i].name >= 0) {
            Py_XDECREF(w->cache[i].attrs);
            Py_XDECREF(w->cache[i].region);
            Py_XDECREF(w->cache[i].colspan);
        }
    }
    PyMem_Free(w->cache);
    Py_XDECREF(w->tokens);
    Py_XDECREF(w->regions);
}

static PyObject *scan(PyObject *module, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"html", "split", "region_of", "words", "token_type",
                               "region_type", NULL};
    PyObject *html, *split, *region_of, *token_type, *region_type;
    int words;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "UOOpOO:scan", keywords, &html, &split,
                                     &region_of, &words, &token_type, &region_type))
        return NULL;
    if (!PyType_Check(token_type)
        || !PyType_IsSubtype((PyTypeObject *)token_type, &PyTuple_Type)) {
        PyErr_SetString(PyExc_TypeError, "token_type must be a tuple subclass");
        return NULL;
    }
    Walker w;
    memset(&w, 0, sizeof(w));
    Py_ssize_t n;
    const char *data;
    PyObject *encoded = NULL;  /* the UTF-8 copy of a non-ASCII page, dropped at the end */
    if (PyUnicode_IS_COMPACT_ASCII(html)) {
        data = PyUnicode_AsUTF8AndSize(html, &n);
    } else {
        encoded = PyUnicode_AsUTF8String(html);
        if (!encoded)
            return NULL;
        data = PyBytes_AS_STRING(encoded);
        n = PyBytes_GET_SIZE(encoded);
    }
    if (!data)
        return NULL;
    w.d = (const unsigned char *)data;
    w.n = n;
    w.split = split;
    w.region_of = region_of;
    w.token_type = token_type;
    w.region_type = region_type;
    w.words = words;
    if (region_of == Py_None) {
        w.has_region_of = 0;
    } else {
        w.has_region_of = PyObject_IsTrue(region_of);
        if (w.has_region_of < 0) {
            Py_XDECREF(encoded);
            return NULL;
        }
    }
    PyObject *result = NULL;
    w.tokens = PyList_New(0);
    w.regions = PyList_New(0);
    if (!w.tokens || !w.regions)
        goto done;
    for (int k = 0; k < N_KNOWN; k++)
        if (name_add(&w, (const unsigned char *)KNOWN[k].name,
                     (Py_ssize_t)strlen(KNOWN[k].name), KNOWN[k].flags, 1) < 0)
            goto done;
    if (walk(&w) < 0)
        goto done;
    result = PyTuple_Pack(2, w.tokens, w.regions);
done:
    walker_free(&w);
    Py_XDECREF(encoded);
    return result;
}

static PyMethodDef METHODS[] = {
    {"scan", (PyCFunction)(void (*)(void))scan, METH_VARARGS | METH_KEYWORDS,
     "scan(html, split, region_of, words, token_type, region_type) -> (tokens, regions)\n\n"
     "What ``w = _Walker(html, region_of, words); (w.walk(), w.regions)`` gives in\n"
     "filters.nq.tokens, with ``split`` as the text tokenizer."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef MODULE = {
    PyModuleDef_HEAD_INIT, "filters.nq._walker",
    "The HTML walker of filters.nq.tokens in C (same output as the Python reference).", -1,
    METHODS, NULL, NULL, NULL, NULL,
};

static int capitalized(const char *name, char *out, size_t size, int closing)
{
    char cap[16];
    snprintf(cap, sizeof(cap), "%s", name);
    cap[0] = (char)(cap[0] - 'a' + 'A');
    return snprintf(out, size, closing ? "</%s>" : "<%s>", cap);
}

/* The frozenset of the NULL-terminated ASCII strings `words`. */
static PyObject *words_set(const char *const *words)
{
    PyObject *set = PyFrozenSet_New(NULL);
    for (; set && *words; words++) {
        PyObject *word = PyUnicode_FromString(*words);
        if (!word || PySet_Add(set, word) < 0)
            Py_CLEAR(set);
        Py_XDECREF(word);
    }
    return set;
}

static int add_object(PyObject *module, const char *name, PyObject *value)  /* steals */
{
    int rc = value ? PyModule_AddObjectRef(module, name, value) : -1;
    Py_XDECREF(value);
    return rc;
}

/* The tables the walker uses, as module attributes (copies: KNOWN_TAGS, a frozenset of tag
 * names per flag, the id and class sets), which tests/filters/nq/test_c_tables.py compares
 * with the Python sets. */
static int add_tables(PyObject *module)
{
    PyObject *names = PyTuple_New(N_KNOWN);
    for (int k = 0; names && k < N_KNOWN; k++) {
        PyObject *name = PyUnicode_FromString(KNOWN[k].name);
        if (!name)
            Py_CLEAR(names);
        else
            PyTuple_SET_ITEM(names, k, name);
    }
    if (add_object(module, "KNOWN_TAGS", names) < 0)
        return -1;
    for (int bit = 0; bit < N_FLAGS; bit++) {
        PyObject *set = PyFrozenSet_New(NULL);
        for (int k = 0; set && k < N_KNOWN; k++) {
            if (!(KNOWN[k].flags & (1u << bit)))
                continue;
            PyObject *name = PyUnicode_FromString(KNOWN[k].name);
            if (!name || PySet_Add(set, name) < 0)
                Py_CLEAR(set);
            Py_XDECREF(name);
        }
        if (add_object(module, FLAG_SETS[bit], set) < 0)
            return -1;
    }
    for (int t = 0; WORD_TABLES[t].name; t++)
        if (add_object(module, WORD_TABLES[t].name, words_set(WORD_TABLES[t].words)) < 0)
            return -1;
    return 0;
}

PyMODINIT_FUNC PyInit__walker(void)
{
    if (!UNESCAPE) {
        PyObject *html = PyImport_ImportModule("html");
        if (!html)
            return NULL;
        UNESCAPE = PyObject_GetAttrString(html, "unescape");
        Py_DECREF(html);
        if (!UNESCAPE)
            return NULL;
        STR_CLASS = PyUnicode_InternFromString("class");
        STR_ID = PyUnicode_InternFromString("id");
        STR_COLSPAN = PyUnicode_InternFromString("colspan");
        STR_STRIP = PyUnicode_InternFromString("strip");
        if (!STR_CLASS || !STR_ID || !STR_COLSPAN || !STR_STRIP)
            return NULL;
        for (int k = 0; k < N_KNOWN; k++) {
            if (!(KNOWN[k].flags & F_TOKEN))
                continue;
            char buf[32];
            capitalized(KNOWN[k].name, buf, sizeof(buf), 0);
            OPEN_TOKEN[k] = PyUnicode_InternFromString(buf);
            capitalized(KNOWN[k].name, buf, sizeof(buf), 1);
            CLOSE_TOKEN[k] = PyUnicode_InternFromString(buf);
            if (!OPEN_TOKEN[k] || !CLOSE_TOKEN[k])
                return NULL;
        }
    }
    PyObject *module = PyModule_Create(&MODULE);
    if (module && add_tables(module) < 0)
        Py_CLEAR(module);
    return module;
}
