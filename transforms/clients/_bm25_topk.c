/* Exact top-k BM25 over a memory-mapped CSC index: MaxScore, document at a time.
 *
 * The Python side (transforms/clients/bm25_index.py) passes bm25s's document-ordered
 * ``data`` (float32 scores) and ``indices`` (int32 document ids) arrays, and for one query
 * its distinct terms (start and length of each posting list, the term's best score, how
 * often the query repeats it) and the query's terms in order. The result is the same as
 * scoring every document the way bm25s does (float32 contributions summed term by term in
 * query order) and keeping the k best positive scores, equal scores by lower document id.
 *
 * MaxScore (Turtle and Flood 1995): terms sorted by their best possible contribution; the
 * longest prefix of them whose bounds together cannot beat the current k-th score is
 * "non-essential": a document only in those lists cannot enter the top k, so only the
 * essential lists are walked, and the others are searched (galloping) for the documents
 * that still can. Documents come in increasing id order, so a later document with a score
 * equal to the k-th never displaces it (ties go to the lower id).
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Bounds are compared with a relative margin, so float32 rounding of a sum can never make
 * a pruned document one that would have entered the top k: a float32 sum of m positive terms
 * is within m * 2^-24 of the exact sum, and the margin is 1e-4 plus twice that. */
static double margin_for(Py_ssize_t terms) { return 1.0001 + (double)terms * 1.2e-7; }

typedef struct {
    const int32_t *docs;
    const float *scores;
    Py_ssize_t length;
    Py_ssize_t pos;
    double bound;  /* weight x best score */
    double weight; /* how often the query has the term */
    int slot;      /* index among the query's distinct terms */
} Cursor;

typedef struct {
    float score;
    int32_t doc;
} Hit;

/* a is worse than b: lower score, or the same score and a higher id */
static int worse(Hit a, Hit b) {
    return a.score < b.score || (a.score == b.score && a.doc > b.doc);
}

static void heap_down(Hit *heap, Py_ssize_t n, Py_ssize_t i) {
    for (;;) {
        Py_ssize_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && worse(heap[l], heap[m])) m = l;
        if (r < n && worse(heap[r], heap[m])) m = r;
        if (m == i) return;
        Hit t = heap[i];
        heap[i] = heap[m];
        heap[m] = t;
        i = m;
    }
}

static void heap_up(Hit *heap, Py_ssize_t i) {
    while (i > 0) {
        Py_ssize_t p = (i - 1) / 2;
        if (!worse(heap[i], heap[p])) return;
        Hit t = heap[i];
        heap[i] = heap[p];
        heap[p] = t;
        i = p;
    }
}

static int by_bound(const void *a, const void *b) {
    const Cursor *x = a, *y = b;
    if (x->bound != y->bound) return x->bound < y->bound ? -1 : 1;
    return x->slot - y->slot;
}

static int best_first(const void *a, const void *b) {
    const Hit *x = a, *y = b;
    if (x->score != y->score) return x->score > y->score ? -1 : 1;
    return x->doc < y->doc ? -1 : (x->doc > y->doc);
}

/* First position >= c->pos whose document is >= doc (galloping, then binary search). */
static Py_ssize_t seek(const Cursor *c, int32_t doc) {
    Py_ssize_t lo = c->pos, step = 1, hi;
    if (lo >= c->length || c->docs[lo] >= doc) return lo;
    while (lo + step < c->length && c->docs[lo + step] < doc) {
        lo += step;
        step *= 2;
    }
    hi = lo + step < c->length ? lo + step : c->length;
    lo += 1;
    while (lo < hi) {
        Py_ssize_t mid = lo + (hi - lo) / 2;
        if (c->docs[mid] < doc) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* The search itself, without the GIL: the hits, best first, into heap; their number, or -1
 * when memory runs out. */
static Py_ssize_t maxscore(Cursor *cur, int n, const int *order, Py_ssize_t order_len,
                           Py_ssize_t k, Hit *heap) {
    Py_ssize_t size = 0;
    const double MARGIN = margin_for(order_len);
    double *prefix = malloc(sizeof(double) * (n + 1));
    float *contrib = calloc(n, sizeof(float));
    if (!prefix || !contrib) {
        free(prefix);
        free(contrib);
        return -1;
    }
    qsort(cur, n, sizeof(Cursor), by_bound);
    prefix[0] = 0.0;
    for (int i = 0; i < n; i++) prefix[i + 1] = prefix[i] + cur[i].bound;
    int first = 0; /* cur[first..n) are essential */
    double threshold = 0.0;
    for (;;) {
        int32_t doc = INT32_MAX;
        int any = 0;
        for (int i = first; i < n; i++) {
            if (cur[i].pos < cur[i].length) {
                any = 1;
                if (cur[i].docs[cur[i].pos] < doc) doc = cur[i].docs[cur[i].pos];
            }
        }
        if (!any) break;
        double partial = 0.0;
        for (int i = first; i < n; i++) {
            Cursor *c = &cur[i];
            if (c->pos < c->length && c->docs[c->pos] == doc) {
                contrib[c->slot] = c->scores[c->pos];
                partial += c->weight * (double)c->scores[c->pos];
                c->pos++;
            }
        }
        int alive = 1;
        for (int i = first - 1; i >= 0; i--) { /* non-essential, best bound first */
            if ((partial + prefix[i + 1]) * MARGIN <= threshold) {
                alive = 0;
                break;
            }
            Cursor *c = &cur[i];
            c->pos = seek(c, doc);
            if (c->pos < c->length && c->docs[c->pos] == doc) {
                contrib[c->slot] = c->scores[c->pos];
                partial += c->weight * (double)c->scores[c->pos];
            }
        }
        if (alive) {
            float total = 0.0f; /* bm25s's sum: float32, term by term in query order */
            for (Py_ssize_t j = 0; j < order_len; j++) total += contrib[order[j]];
            Hit hit = {total, doc};
            if (total > 0.0f) {
                if (size < k) {
                    heap[size] = hit;
                    heap_up(heap, size);
                    size++;
                } else if (worse(heap[0], hit)) {
                    heap[0] = hit;
                    heap_down(heap, size, 0);
                }
                if (size == k) {
                    threshold = heap[0].score;
                    while (first < n && prefix[first + 1] * MARGIN <= threshold) first++;
                }
            }
        }
        for (int i = 0; i < n; i++) contrib[i] = 0.0f;
    }
    free(prefix);
    free(contrib);
    qsort(heap, size, sizeof(Hit), best_first);
    return size;
}

static int get_buffer(PyObject *obj, Py_buffer *view, const char *fmt, Py_ssize_t itemsize,
                      const char *what) {
    if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return -1;
    const char *f = view->format ? view->format : "B";
    if (*f == '<' || *f == '=' || *f == '@') f++;
    if (view->itemsize != itemsize || strcmp(f, fmt) != 0) {
        PyErr_Format(PyExc_TypeError, "%s: expected a contiguous %s array", what,
                     itemsize == 4 && fmt[0] == 'f' ? "float32" : "int32");
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

static PyObject *top_k(PyObject *self, PyObject *args) {
    PyObject *data_obj, *indices_obj, *terms, *order_obj;
    Py_ssize_t k;
    if (!PyArg_ParseTuple(args, "OOO!O!n", &data_obj, &indices_obj, &PyList_Type, &terms,
                          &PyList_Type, &order_obj, &k))
        return NULL;
    /* tuple copies: parsing a term can run Python code (__index__, __float__) that changes
     * the lists */
    terms = PyList_AsTuple(terms);
    if (!terms) return NULL;
    order_obj = PyList_AsTuple(order_obj);
    if (!order_obj) {
        Py_DECREF(terms);
        return NULL;
    }
    Py_buffer data, indices;
    if (get_buffer(data_obj, &data, "f", 4, "data") < 0) {
        Py_DECREF(terms);
        Py_DECREF(order_obj);
        return NULL;
    }
    if (get_buffer(indices_obj, &indices, "i", 4, "indices") < 0) {
        PyBuffer_Release(&data);
        Py_DECREF(terms);
        Py_DECREF(order_obj);
        return NULL;
    }
    PyObject *result = NULL;
    Py_ssize_t n = PyTuple_GET_SIZE(terms), order_len = PyTuple_GET_SIZE(order_obj);
    Py_ssize_t total = data.len / 4;
    Cursor *cur = NULL;
    int *order = NULL;
    Hit *heap = NULL;
    if (indices.len != data.len) {
        PyErr_SetString(PyExc_ValueError, "data and indices differ in length");
        goto done;
    }
    if (k <= 0 || n == 0 || order_len == 0) {
        result = PyList_New(0);
        goto done;
    }
    if (n > INT32_MAX / 2) {
        PyErr_SetString(PyExc_ValueError, "too many query terms");
        goto done;
    }
    cur = PyMem_Calloc(n, sizeof(Cursor));
    order = PyMem_Calloc(order_len, sizeof(int));
    if (!cur || !order) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t room = 0; /* min(k, the query's postings): no more hits than that */
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t start, length;
        double bound, weight;
        if (!PyTuple_Check(PyTuple_GET_ITEM(terms, i))) {
            PyErr_SetString(PyExc_TypeError,
                            "each term must be a (start, length, bound, weight) tuple");
            goto done;
        }
        if (!PyArg_ParseTuple(PyTuple_GET_ITEM(terms, i), "nndd", &start, &length, &bound,
                              &weight))
            goto done;
        if (start < 0 || length < 0 || start > total || length > total - start) {
            PyErr_SetString(PyExc_ValueError, "a posting list lies outside the index");
            goto done;
        }
        cur[i] = (Cursor){(const int32_t *)indices.buf + start, (const float *)data.buf + start,
                          length, 0, bound, weight, (int)i};
        room = length < k - room ? room + length : k;
    }
    for (Py_ssize_t j = 0; j < order_len; j++) {
        Py_ssize_t slot = PyLong_AsSsize_t(PyTuple_GET_ITEM(order_obj, j));
        if (slot == -1 && PyErr_Occurred()) goto done;
        if (slot < 0 || slot >= n) {
            PyErr_SetString(PyExc_ValueError, "a query term is not among the terms");
            goto done;
        }
        order[j] = (int)slot;
    }
    if (room == 0) {
        result = PyList_New(0);
        goto done;
    }
    k = room;
    heap = PyMem_Calloc(k, sizeof(Hit));
    if (!heap) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t found;
    Py_BEGIN_ALLOW_THREADS
    found = maxscore(cur, (int)n, order, order_len, k, heap);
    Py_END_ALLOW_THREADS
    if (found < 0) {
        PyErr_NoMemory();
        goto done;
    }
    result = PyList_New(found);
    if (!result) goto done;
    for (Py_ssize_t i = 0; i < found; i++) {
        PyObject *item = Py_BuildValue("(id)", (int)heap[i].doc, (double)heap[i].score);
        if (!item) {
            Py_CLEAR(result);
            goto done;
        }
        PyList_SET_ITEM(result, i, item);
    }
done:
    PyMem_Free(cur);
    PyMem_Free(order);
    PyMem_Free(heap);
    PyBuffer_Release(&data);
    PyBuffer_Release(&indices);
    Py_DECREF(terms);
    Py_DECREF(order_obj);
    return result;
}

static PyMethodDef methods[] = {
    {"top_k", top_k, METH_VARARGS,
     "top_k(data, indices, terms, order, k) -> [(doc, score)]: the k best documents.\n\n"
     "terms: [(start, length, bound, weight)] per distinct query term (bound: weight x its\n"
     "best score; weight: how often the query has it); order: the query's terms as\n"
     "indexes into terms, in query order (a repeated term appears again)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "transforms.clients._bm25_topk",
    "Exact top-k BM25 over bm25s's memory-mapped arrays (MaxScore).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__bm25_topk(void) { return PyModule_Create(&module); }
