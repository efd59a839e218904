/* SPDX-License-Identifier: MIT */
/*
 * _pctr.c - the C half of the Python package pctr: sets, reads, events,
 * the machine, regions and overflow notification over libpctr.  The
 * Python half (__init__.py) adds targets by keyword, the context managers,
 * the overflow callback thread and pctr.stat().
 *
 * The GIL.  It is released around every call that may make a system call
 * or block: opening, enabling, reading through read(2), freeing, region
 * begin and end, the overflow pump.  A read that the library does in user
 * space (pctr_set_user_read() says so after the first) keeps it: releasing
 * costs more than the read.
 *
 * Threads.  A libpctr set is used by one thread at a time; a Set here may
 * be shared by Python threads, because every call on it takes the set's
 * lock (without the GIL when it has to wait).  Different sets never wait
 * for each other.
 *
 * Overflow.  The library calls its callback in a signal handler, where no
 * Python may run.  The callback here writes the struct pctr_overflow_info
 * to a non-blocking pipe (one write of 64 bytes: atomic, async-signal-safe,
 * whichever thread takes the signal); Set._pump() reads it in a Python
 * thread and hands it to the Python callback.  A full pipe drops the
 * record and counts it (Set.overflow_dropped).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <errno.h>
#include <fcntl.h>
#include <pctr.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static PyObject *Error;
static PyTypeObject CountType, OverflowType, SummaryType, EventInfoType;

/* a pctr.Error from a negative errno of libpctr, with pctr_strerror()'s
 * text: call it in the thread that made the failing call */
static PyObject *
raise_pctr(int r)
{
	char buf[1024];
	PyObject *e;

	pctr_strerror_r(r, buf, sizeof(buf));
	e = PyObject_CallFunction(Error, "is", r < 0 ? -r : r, buf);
	if (e) {
		PyErr_SetObject(Error, e);
		Py_DECREF(e);
	}
	return NULL;
}

static PyObject *
raise_errno(int err, const char *text)
{
	PyObject *e = PyObject_CallFunction(Error, "is", err, text);

	if (e) {
		PyErr_SetObject(Error, e);
		Py_DECREF(e);
	}
	return NULL;
}

/* ---- Reading: one read of a set ----------------------------------------- */

/*
 * Each count is kept with the set's scale state as it was after this read
 * (struct pctr_scale: the count is its @last): the bounds are worked out
 * from it when a Count is made, not on every read.  A difference of
 * readings (@delta) has no rates: its bounds are its value when the event
 * never left its counter, else unknown.
 */
typedef struct {
	PyObject_VAR_HEAD
	PyObject *names; /* the set's tuple of names, shared */
	PyObject *index; /* name -> index, shared */
	uint64_t tsc;
	uint32_t path;
	uint32_t delta;
	struct pctr_scale count[1];
} ReadingObject;

static PyTypeObject ReadingType;

/*
 * Freed Readings of up to READING_FREE_EVENTS events are kept for the next
 * read (at most READING_FREE_MAX of each size), as CPython keeps its
 * floats and tuples: a read then allocates nothing.  The lists are used
 * with the GIL held only.
 */
#define READING_FREE_EVENTS 8
#define READING_FREE_MAX 16
static struct {
	ReadingObject *head[READING_FREE_EVENTS + 1]; /* linked by ->names */
	int nr[READING_FREE_EVENTS + 1];
} reading_free;

static ReadingObject *
reading_new(Py_ssize_t nr, PyObject *names, PyObject *index)
{
	ReadingObject *rd = NULL;

	if (nr <= READING_FREE_EVENTS && reading_free.head[nr]) {
		rd = reading_free.head[nr];
		reading_free.head[nr] = (ReadingObject *)rd->names;
		reading_free.nr[nr]--;
		PyObject_InitVar((PyVarObject *)rd, &ReadingType, nr);
	} else {
		rd = PyObject_NewVar(ReadingObject, &ReadingType, nr);
		if (!rd)
			return NULL;
	}
	Py_XINCREF(names);
	Py_XINCREF(index);
	rd->names = names;
	rd->index = index;
	rd->delta = 0;
	return rd;
}

static void
Reading_dealloc(ReadingObject *rd)
{
	Py_ssize_t nr = Py_SIZE(rd);

	Py_XDECREF(rd->names);
	Py_XDECREF(rd->index);
	if (nr <= READING_FREE_EVENTS &&
	    reading_free.nr[nr] < READING_FREE_MAX) {
		rd->names = (PyObject *)reading_free.head[nr];
		reading_free.head[nr] = rd;
		reading_free.nr[nr]++;
		return;
	}
	PyObject_Free(rd);
}

static PyObject *
count_object(const ReadingObject *rd, Py_ssize_t i)
{
	const struct pctr_scale *sc = &rd->count[i];
	const struct pctr_count *cnt = &sc->last;
	PyObject *c = PyStructSequence_New(&CountType);
	double low = Py_NAN, high = Py_NAN;

	if (!c)
		return NULL;
	if (rd->delta) {
		if (cnt->running >= cnt->enabled)
			low = high = (double)cnt->value;
	} else if (pctr_scale_bounds(sc, &low, &high) < 0) {
		low = high = Py_NAN;
	}
	PyStructSequence_SET_ITEM(c, 0,
				  PyLong_FromUnsignedLongLong(cnt->value));
	PyStructSequence_SET_ITEM(c, 1,
				  PyLong_FromUnsignedLongLong(cnt->enabled));
	PyStructSequence_SET_ITEM(c, 2,
				  PyLong_FromUnsignedLongLong(cnt->running));
	PyStructSequence_SET_ITEM(c, 3,
				  PyFloat_FromDouble(pctr_count_scaled(cnt)));
	PyStructSequence_SET_ITEM(c, 4, PyFloat_FromDouble(low));
	PyStructSequence_SET_ITEM(c, 5, PyFloat_FromDouble(high));
	if (PyErr_Occurred()) {
		Py_DECREF(c);
		return NULL;
	}
	return c;
}

static Py_ssize_t
Reading_len(ReadingObject *rd)
{
	return Py_SIZE(rd);
}

static Py_ssize_t
reading_index(ReadingObject *rd, PyObject *key)
{
	PyObject *idx;
	Py_ssize_t i;

	if (PyLong_Check(key)) {
		i = PyLong_AsSsize_t(key);
		if (i == -1 && PyErr_Occurred())
			return -1;
		if (i < 0)
			i += Py_SIZE(rd);
		if (i < 0 || i >= Py_SIZE(rd)) {
			PyErr_SetString(PyExc_IndexError,
					"event index out of range");
			return -1;
		}
		return i;
	}
	idx = rd->index ? PyDict_GetItemWithError(rd->index, key) : NULL;
	if (!idx) {
		if (!PyErr_Occurred())
			PyErr_SetObject(PyExc_KeyError, key);
		return -1;
	}
	return PyLong_AsSsize_t(idx);
}

static PyObject *
Reading_getitem(ReadingObject *rd, PyObject *key)
{
	Py_ssize_t i = reading_index(rd, key);

	if (i < 0) {
		if (PyErr_ExceptionMatches(PyExc_KeyError) && rd->index) {
			PyErr_Format(PyExc_KeyError,
				     "%R is not an event of this set, whose "
				     "events are %R", key, rd->names);
		}
		return NULL;
	}
	return count_object(rd, i);
}

static PyObject *
Reading_keys(ReadingObject *rd, PyObject *unused)
{
	Py_INCREF(rd->names);
	return rd->names;
}

static PyObject *
Reading_values(ReadingObject *rd, PyObject *unused)
{
	PyObject *t = PyTuple_New(Py_SIZE(rd));

	for (Py_ssize_t i = 0; t && i < Py_SIZE(rd); i++) {
		uint64_t x = rd->count[i].last.value;
		PyObject *v = PyLong_FromUnsignedLongLong(x);

		if (!v) {
			Py_CLEAR(t);
			break;
		}
		PyTuple_SET_ITEM(t, i, v);
	}
	return t;
}

static PyObject *
Reading_items(ReadingObject *rd, PyObject *unused)
{
	PyObject *l = PyList_New(Py_SIZE(rd));

	for (Py_ssize_t i = 0; l && i < Py_SIZE(rd); i++) {
		PyObject *c = count_object(rd, i);
		PyObject *kv = c ? PyTuple_Pack(2, PyTuple_GET_ITEM(rd->names, i),
						c)
				 : NULL;

		Py_XDECREF(c);
		if (!kv) {
			Py_CLEAR(l);
			break;
		}
		PyList_SET_ITEM(l, i, kv);
	}
	return l;
}

static PyObject *
Reading_iter(ReadingObject *rd)
{
	return PyObject_GetIter(rd->names);
}

static int
Reading_contains(ReadingObject *rd, PyObject *key)
{
	return PySequence_Contains(rd->names, key);
}

/* after - before: each count's delta (pctr_count_delta()) */
static PyObject *
Reading_sub(PyObject *a, PyObject *b)
{
	ReadingObject *x = (ReadingObject *)a, *y = (ReadingObject *)b, *d;

	if (!PyObject_TypeCheck(a, &ReadingType) ||
	    !PyObject_TypeCheck(b, &ReadingType))
		Py_RETURN_NOTIMPLEMENTED;
	if (Py_SIZE(x) != Py_SIZE(y) || x->names != y->names) {
		PyErr_SetString(PyExc_ValueError,
				"readings of different sets");
		return NULL;
	}
	d = reading_new(Py_SIZE(x), x->names, x->index);
	if (!d)
		return NULL;
	d->tsc = x->tsc - y->tsc;
	d->path = x->path | y->path;
	d->delta = 1;
	for (Py_ssize_t i = 0; i < Py_SIZE(x); i++)
		d->count[i] = (struct pctr_scale){
			.last = pctr_count_delta(&x->count[i].last,
						 &y->count[i].last)
		};
	return (PyObject *)d;
}

static PyObject *
Reading_path(ReadingObject *rd, void *unused)
{
	if ((rd->path & PCTR_PATH_USER) && (rd->path & PCTR_PATH_SYSCALL))
		return PyUnicode_FromString("user+syscall");
	return PyUnicode_FromString(rd->path & PCTR_PATH_USER ? "user"
							       : "syscall");
}

static PyObject *
Reading_tsc(ReadingObject *rd, void *unused)
{
	return PyLong_FromUnsignedLongLong(rd->tsc);
}

static PyObject *
Reading_ns(ReadingObject *rd, void *unused)
{
	return PyLong_FromUnsignedLongLong(pctr_tsc_to_ns(rd->tsc));
}

static PyObject *
Reading_names(ReadingObject *rd, void *unused)
{
	Py_INCREF(rd->names);
	return rd->names;
}

static PyObject *
Reading_repr(ReadingObject *rd)
{
	PyObject *items = Reading_items(rd, NULL), *r;

	if (!items)
		return NULL;
	r = PyUnicode_FromFormat("<pctr.Reading path=%s %R>",
				 rd->path & PCTR_PATH_USER ? "user" : "syscall",
				 items);
	Py_DECREF(items);
	return r;
}

static PyMethodDef Reading_methods[] = {
	{ "keys", (PyCFunction)Reading_keys, METH_NOARGS,
	  "keys() -> tuple of the event names, in the set's order" },
	{ "values", (PyCFunction)Reading_values, METH_NOARGS,
	  "values() -> tuple of the raw counts (ints), in the set's order" },
	{ "items", (PyCFunction)Reading_items, METH_NOARGS,
	  "items() -> list of (name, Count) pairs" },
	{ NULL }
};

static PyGetSetDef Reading_getset[] = {
	{ "path", (getter)Reading_path, NULL,
	  "how the counts were read: 'user' (in user space, no system call), "
	  "'syscall' (read(2)) or 'user+syscall'" },
	{ "tsc", (getter)Reading_tsc, NULL,
	  "the timestamp counter taken with the counts (for a difference of "
	  "readings, the ticks between them)" },
	{ "ns", (getter)Reading_ns, NULL, "tsc in nanoseconds" },
	{ "names", (getter)Reading_names, NULL, "the event names" },
	{ NULL }
};

static PyMappingMethods Reading_mapping = {
	.mp_length = (lenfunc)Reading_len,
	.mp_subscript = (binaryfunc)Reading_getitem,
};

static PySequenceMethods Reading_sequence = {
	.sq_contains = (objobjproc)Reading_contains,
};

static PyNumberMethods Reading_number = {
	.nb_subtract = Reading_sub,
};

static PyTypeObject ReadingType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "pctr.Reading",
	.tp_basicsize = offsetof(ReadingObject, count),
	.tp_itemsize = sizeof(struct pctr_scale),
	.tp_dealloc = (destructor)Reading_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "Reading: every count of a set at one moment.\n\n"
		  "r['page-faults'] or r[0] is a Count; len(r), iteration "
		  "over the names,\nkeys(), values(), items() as a mapping; "
		  "after - before is the\ndifference of two readings of "
		  "one set.",
	.tp_as_mapping = &Reading_mapping,
	.tp_as_sequence = &Reading_sequence,
	.tp_as_number = &Reading_number,
	.tp_iter = (getiterfunc)Reading_iter,
	.tp_methods = Reading_methods,
	.tp_getset = Reading_getset,
	.tp_repr = (reprfunc)Reading_repr,
};

/* ---- Set ---------------------------------------------------------------- */

typedef struct {
	PyObject_HEAD
	struct pctr_set *set;
	int busy, waiters; /* the set's lock: see set_lock() */
	sem_t handoff;
	int open; /* 0 new, 1 open, 2 closed */
	PyObject *names; /* tuple, made at open */
	PyObject *index; /* dict name -> index */
	int ovf_pipe[2]; /* overflow records, -1 when unused */
	atomic_ulong ovf_dropped;
	struct pctr_scale scale[PCTR_MAX_EVENTS];
	ReadingObject *last; /* the last read's Reading: see set_reading() */
	PyObject *dict; /* for the Python subclass's attributes */
} SetObject;

static PyTypeObject SetType;

/*
 * The set's lock.  It is always taken and given back with the GIL held
 * (the module has one GIL: it is single-phase, so no other interpreter
 * loads it, and a free-threaded CPython keeps the GIL for it), so the GIL
 * guards @busy and @waiters: taking a free lock is a test and a store.  A
 * thread that finds it busy counts itself in @waiters and waits without
 * the GIL on @handoff; the holder's unlock then hands the lock to one
 * waiter (busy stays set), so a holder that takes it again at once waits
 * its turn rather than starving the others.
 */
static void
set_lock(SetObject *s)
{
	if (!s->busy) {
		s->busy = 1;
		return;
	}
	s->waiters++;
	Py_BEGIN_ALLOW_THREADS
	while (sem_wait(&s->handoff) < 0)
		; /* EINTR */
	Py_END_ALLOW_THREADS
	s->waiters--;
}

static void
set_unlock(SetObject *s)
{
	if (s->waiters)
		sem_post(&s->handoff);
	else
		s->busy = 0;
}

static PyObject *
Set_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
	SetObject *s = (SetObject *)type->tp_alloc(type, 0);
	int r;

	if (!s)
		return NULL;
	s->ovf_pipe[0] = s->ovf_pipe[1] = -1;
	sem_init(&s->handoff, 0, 0);
	r = pctr_set_new(&s->set, 0);
	if (r < 0) {
		Py_DECREF(s);
		return raise_pctr(r);
	}
	return (PyObject *)s;
}

/* Set(events="", flags=0): the events are added here */
static int
Set_init(SetObject *s, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "events", NULL };
	const char *events = NULL;
	int r;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|z", kwlist, &events))
		return -1;
	if (!events || !*events)
		return 0;
	Py_BEGIN_ALLOW_THREADS
	r = pctr_set_add_list(s->set, events);
	Py_END_ALLOW_THREADS
	if (r < 0) {
		raise_pctr(r);
		return -1;
	}
	return 0;
}

static void
set_close_fds(SetObject *s)
{
	struct pctr_set *set = s->set;

	s->set = NULL;
	Py_CLEAR(s->last);
	if (set) {
		Py_BEGIN_ALLOW_THREADS
		pctr_set_free(set);
		Py_END_ALLOW_THREADS
	}
	/* after the free no handler writes: the pump sees the end */
	if (s->ovf_pipe[1] >= 0)
		close(s->ovf_pipe[1]);
	s->ovf_pipe[1] = -1;
}

static int
Set_traverse(SetObject *s, visitproc visit, void *arg)
{
	Py_VISIT(s->dict);
	return 0;
}

static int
Set_clear(SetObject *s)
{
	Py_CLEAR(s->dict);
	return 0;
}

static void
Set_dealloc(SetObject *s)
{
	PyObject_GC_UnTrack(s);
	set_close_fds(s);
	if (s->ovf_pipe[0] >= 0)
		close(s->ovf_pipe[0]);
	sem_destroy(&s->handoff);
	Py_XDECREF(s->names);
	Py_XDECREF(s->index);
	Set_clear(s);
	Py_TYPE(s)->tp_free(s);
}

static int
state_error(SetObject *s)
{
	static const char *const what[] = {
		"the set is not open yet: open() it first",
		"the set is already open: add events before open()",
		"the set is closed",
	};
	int state = s->set ? s->open : 2;

	raise_errno(state == 1 ? EBUSY : EBADFD, what[state]);
	return -1;
}

/* 0 if the set is new (@want 0) or open (1), else -1 with the error */
static inline int
check_state(SetObject *s, int want)
{
	return s->set && s->open == want ? 0 : state_error(s);
}

static PyObject *
Set_add(SetObject *s, PyObject *args)
{
	const char *spec;
	int r;

	if (!PyArg_ParseTuple(args, "s", &spec))
		return NULL;
	set_lock(s);
	if (check_state(s, 0)) {
		set_unlock(s);
		return NULL;
	}
	Py_BEGIN_ALLOW_THREADS
	r = pctr_set_add_list(s->set, spec);
	Py_END_ALLOW_THREADS
	set_unlock(s);
	if (r < 0)
		return raise_pctr(r);
	return PyLong_FromLong(r);
}

static PyObject *
Set_group(SetObject *s, PyObject *args)
{
	int first, nr, r;

	if (!PyArg_ParseTuple(args, "ii", &first, &nr))
		return NULL;
	set_lock(s);
	r = check_state(s, 0) ? 1 : pctr_set_group(s->set, first, nr);
	set_unlock(s);
	if (r > 0)
		return NULL;
	if (r < 0)
		return raise_pctr(r);
	Py_RETURN_NONE;
}

/* the names after open: what pctr_event_display_name() shows; the parsed
 * name too when the kernel made it ":u" (so c["cycles"] still works) */
static int
make_names(SetObject *s)
{
	int nr = pctr_set_nr(s->set);
	PyObject *names = PyTuple_New(nr), *index = PyDict_New();

	for (int i = 0; names && index && i < nr; i++) {
		const struct pctr_event *ev = pctr_set_event(s->set, i);
		char buf[PCTR_NAME_MAX + 8];
		PyObject *n, *raw, *idx = PyLong_FromLong(i);

		pctr_event_display_name(ev, buf, sizeof(buf));
		n = PyUnicode_FromString(buf);
		raw = PyUnicode_FromString(ev->name);
		if (!n || !raw || !idx || PyDict_SetItem(index, raw, idx) ||
		    PyDict_SetItem(index, n, idx)) {
			Py_XDECREF(n);
			Py_CLEAR(names);
		} else {
			PyTuple_SET_ITEM(names, i, n);
		}
		Py_XDECREF(raw);
		Py_XDECREF(idx);
	}
	if (!names || !index) {
		Py_XDECREF(names);
		Py_XDECREF(index);
		return -1;
	}
	Py_XSETREF(s->names, names);
	Py_XSETREF(s->index, index);
	memset(s->scale, 0, sizeof(s->scale));
	return 0;
}

static int
int_list(PyObject *seq, int **out, int *nr)
{
	PyObject *fast;
	Py_ssize_t n;

	*out = NULL;
	*nr = 0;
	if (seq == Py_None)
		return 0;
	fast = PySequence_Fast(seq, "cpus must be a sequence of ints");
	if (!fast)
		return -1;
	n = PySequence_Fast_GET_SIZE(fast);
	*out = PyMem_New(int, n ? n : 1);
	for (Py_ssize_t i = 0; *out && i < n; i++) {
		(*out)[i] = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
		if ((*out)[i] == -1 && PyErr_Occurred()) {
			PyMem_Free(*out);
			*out = NULL;
			Py_DECREF(fast);
			return -1;
		}
	}
	Py_DECREF(fast);
	if (!*out) {
		PyErr_NoMemory();
		return -1;
	}
	*nr = (int)n;
	return 0;
}

static PyObject *
set_opened(SetObject *s, int r)
{
	if (r == 0) {
		s->open = 1;
		if (make_names(s) < 0) {
			set_unlock(s);
			return NULL;
		}
	}
	set_unlock(s);
	if (r < 0)
		return raise_pctr(r);
	Py_RETURN_NONE;
}

static PyObject *
Set_open(SetObject *s, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "type", "pid", "cpus", NULL };
	struct pctr_target t = { 0 };
	PyObject *cpus = Py_None;
	int *cpu = NULL, r;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|iiO", kwlist, &t.type,
					 &t.pid, &cpus) ||
	    int_list(cpus, &cpu, &t.nr_cpus) < 0)
		return NULL;
	t.cpus = cpu;
	set_lock(s);
	if (check_state(s, 0)) {
		set_unlock(s);
		PyMem_Free(cpu);
		return NULL;
	}
	Py_BEGIN_ALLOW_THREADS
	r = pctr_set_open(s->set, &t);
	Py_END_ALLOW_THREADS
	PyMem_Free(cpu);
	return set_opened(s, r);
}

static PyObject *
Set_open_command(SetObject *s, PyObject *argv)
{
	PyObject *fast, *bytes = NULL, *ret = NULL;
	Py_ssize_t n;
	char **v;
	pid_t pid = -1;
	int r;

	fast = PySequence_Fast(argv, "argv must be a sequence of strings");
	if (!fast)
		return NULL;
	n = PySequence_Fast_GET_SIZE(fast);
	if (n == 0) {
		Py_DECREF(fast);
		PyErr_SetString(PyExc_ValueError, "argv is empty");
		return NULL;
	}
	v = PyMem_New(char *, n + 1);
	bytes = PyList_New(n);
	for (Py_ssize_t i = 0; v && bytes && i < n; i++) {
		PyObject *b;

		if (!PyUnicode_FSConverter(PySequence_Fast_GET_ITEM(fast, i),
					   &b))
			goto out;
		PyList_SET_ITEM(bytes, i, b);
		v[i] = PyBytes_AS_STRING(b);
	}
	if (!v || !bytes) {
		PyErr_NoMemory();
		goto out;
	}
	v[n] = NULL;
	set_lock(s);
	if (check_state(s, 0)) {
		set_unlock(s);
		goto out;
	}
	Py_BEGIN_ALLOW_THREADS
	r = pctr_set_open_command(s->set, v, &pid);
	Py_END_ALLOW_THREADS
	ret = set_opened(s, r);
	if (ret) {
		Py_DECREF(ret);
		ret = PyLong_FromLong(pid);
	}
out:
	PyMem_Free(v);
	Py_XDECREF(bytes);
	Py_DECREF(fast);
	return ret;
}

/* a call of int (*)(struct pctr_set *) on an open set, without the GIL */
static PyObject *
set_call(SetObject *s, int (*fn)(struct pctr_set *))
{
	int r;

	set_lock(s);
	if (check_state(s, 1)) {
		set_unlock(s);
		return NULL;
	}
	Py_BEGIN_ALLOW_THREADS
	r = fn(s->set);
	Py_END_ALLOW_THREADS
	if (r == 0 && fn == pctr_set_reset)
		memset(s->scale, 0, sizeof(s->scale));
	set_unlock(s);
	if (r < 0)
		return raise_pctr(r);
	Py_RETURN_NONE;
}

static PyObject *
Set_enable(SetObject *s, PyObject *unused)
{
	return set_call(s, pctr_set_enable);
}

static PyObject *
Set_disable(SetObject *s, PyObject *unused)
{
	return set_call(s, pctr_set_disable);
}

static PyObject *
Set_reset(SetObject *s, PyObject *unused)
{
	return set_call(s, pctr_set_reset);
}

/*
 * fill @rd from @smp, with the set's scale state after this read (@scale:
 * its successive reads give the bounds), or for the read of one instance
 * (or a count the scale refused) with this count alone: its bounds are
 * exact when the event never left its counter, else unknown
 */
static void
reading_fill(SetObject *s, ReadingObject *rd, const struct pctr_sample *smp,
	     int scale)
{
	rd->tsc = smp->tsc;
	rd->path = smp->path;
	for (Py_ssize_t i = 0; i < Py_SIZE(rd); i++) {
		if (scale && pctr_scale_add(&s->scale[i], &smp->count[i]) == 0)
			rd->count[i] = s->scale[i];
		else
			rd->count[i] = (struct pctr_scale){
				.last = smp->count[i]
			};
	}
}

/*
 * The Reading for a read of @s (locked): the set's last one when nothing
 * else holds it any more (no one can see it change), else a new one,
 * which becomes the last.  A loop of reads that keeps none allocates
 * nothing.
 */
static ReadingObject *
set_reading(SetObject *s)
{
	ReadingObject *rd = s->last;

	if (rd && Py_REFCNT(rd) == 1) {
		Py_INCREF(rd);
		return rd;
	}
	rd = reading_new(pctr_set_nr(s->set), s->names, s->index);
	if (rd) {
		Py_INCREF(rd);
		Py_XSETREF(s->last, rd);
	}
	return rd;
}

/*
 * True when no other thread can want the GIL while this one reads: the
 * one interpreter has one thread state, this thread's.  The GIL is then
 * kept around a read(2), which saves its release and retake (340 of the
 * 485 instructions the binding added to a read).  A thread of threading
 * gets its thread state before it starts, from its starter, which holds
 * the GIL; a C thread's PyGILState_Ensure() meanwhile waits for the GIL
 * only as long as the read takes, as behind any Python code.
 */
static int
alone(void)
{
	PyThreadState *ts = PyThreadState_Get();
	PyInterpreterState *in = PyThreadState_GetInterpreter(ts);

	return PyInterpreterState_Head() == in &&
	       !PyInterpreterState_Next(in) &&
	       PyInterpreterState_ThreadHead(in) == ts &&
	       !PyThreadState_Next(ts);
}

/* @call (an assignment) without the GIL, unless this thread is alone() */
#define WITHOUT_GIL(call)                                                     \
	do {                                                                  \
		if (alone()) {                                                \
			call;                                                 \
		} else {                                                      \
			Py_BEGIN_ALLOW_THREADS call;                          \
			Py_END_ALLOW_THREADS                                  \
		}                                                             \
	} while (0)

static PyObject *
set_read(SetObject *s, int instance)
{
	struct pctr_sample smp;
	ReadingObject *rd;
	int r;

	set_lock(s);
	if (check_state(s, 1)) {
		set_unlock(s);
		return NULL;
	}
	if (instance < 0 && pctr_set_user_read(s->set)) {
		r = pctr_set_read(s->set, &smp);
	} else {
		WITHOUT_GIL(r = instance < 0 ? pctr_set_read(s->set, &smp)
					     : pctr_set_read_instance(
						       s->set, instance, &smp));
	}
	rd = r == 0 ? set_reading(s) : NULL;
	if (rd)
		reading_fill(s, rd, &smp, instance < 0);
	set_unlock(s);
	if (r < 0)
		return raise_pctr(r);
	return (PyObject *)rd;
}

static PyObject *
Set_read(SetObject *s, PyObject *unused)
{
	return set_read(s, -1);
}

static PyObject *
Set_read_instance(SetObject *s, PyObject *arg)
{
	int i = PyLong_AsLong(arg);

	if (i == -1 && PyErr_Occurred())
		return NULL;
	if (i < 0) {
		PyErr_SetString(PyExc_IndexError, "instance out of range");
		return NULL;
	}
	return set_read(s, i);
}

static PyObject *
Set_read_values(SetObject *s, PyObject *unused)
{
	uint64_t v[PCTR_MAX_EVENTS];
	PyObject *t;
	int r, nr;

	set_lock(s);
	if (check_state(s, 1)) {
		set_unlock(s);
		return NULL;
	}
	nr = pctr_set_nr(s->set);
	if (pctr_set_user_read(s->set)) {
		r = pctr_set_read_values(s->set, v);
	} else {
		WITHOUT_GIL(r = pctr_set_read_values(s->set, v));
	}
	set_unlock(s);
	if (r < 0)
		return raise_pctr(r);
	t = PyTuple_New(nr);
	for (int i = 0; t && i < nr; i++) {
		PyObject *x = PyLong_FromUnsignedLongLong(v[i]);

		if (!x) {
			Py_CLEAR(t);
			break;
		}
		PyTuple_SET_ITEM(t, i, x);
	}
	return t;
}

/*
 * _bench_read(n, values=False) -> ns: n reads by the C library alone
 * (pctr_set_read(), or pctr_set_read_values()), in one C loop, for
 * bench/python_read.py to set the binding's read against the library's
 * in the same process on the same set.
 */
static PyObject *
Set_bench_read(SetObject *s, PyObject *args)
{
	uint64_t v[PCTR_MAX_EVENTS];
	struct pctr_sample smp;
	struct timespec t0, t1;
	long n;
	int values = 0, r = 0;

	if (!PyArg_ParseTuple(args, "l|p", &n, &values))
		return NULL;
	set_lock(s);
	if (check_state(s, 1)) {
		set_unlock(s);
		return NULL;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; i < n && r >= 0; i++)
		r = values ? pctr_set_read_values(s->set, v)
			   : pctr_set_read(s->set, &smp);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	set_unlock(s);
	if (r < 0)
		return raise_pctr(r);
	return PyLong_FromLongLong((t1.tv_sec - t0.tv_sec) * 1000000000LL +
				   (t1.tv_nsec - t0.tv_nsec));
}

static PyObject *
Set_close(SetObject *s, PyObject *unused)
{
	set_lock(s);
	set_close_fds(s);
	s->open = 2;
	set_unlock(s);
	Py_RETURN_NONE;
}

static PyObject *
Set_instances(SetObject *s, PyObject *unused)
{
	PyObject *l;
	int n;

	set_lock(s);
	if (check_state(s, 1)) {
		set_unlock(s);
		return NULL;
	}
	n = pctr_set_nr_instances(s->set);
	l = PyList_New(n > 0 ? n : 0);
	for (int i = 0; l && i < n; i++) {
		PyObject *x = PyLong_FromLong(pctr_set_instance_id(s->set, i));

		if (!x) {
			Py_CLEAR(l);
			break;
		}
		PyList_SET_ITEM(l, i, x);
	}
	set_unlock(s);
	return l;
}

static PyObject *
Set_fd(SetObject *s, PyObject *arg)
{
	int i = PyLong_AsLong(arg), r;

	if (i == -1 && PyErr_Occurred())
		return NULL;
	set_lock(s);
	r = check_state(s, 1) ? 1 : pctr_set_fd(s->set, i);
	set_unlock(s);
	if (r < 0)
		return raise_pctr(r);
	return r == 1 && PyErr_Occurred() ? NULL : PyLong_FromLong(r);
}

static PyObject *
Set_get_names(SetObject *s, void *unused)
{
	PyObject *t;
	int nr;

	if (s->names) {
		Py_INCREF(s->names);
		return s->names;
	}
	if (!s->set)
		return PyTuple_New(0);
	nr = pctr_set_nr(s->set);
	t = PyTuple_New(nr);
	for (int i = 0; t && i < nr; i++) {
		PyObject *n = PyUnicode_FromString(pctr_set_event(s->set, i)
							   ->name);

		if (!n) {
			Py_CLEAR(t);
			break;
		}
		PyTuple_SET_ITEM(t, i, n);
	}
	return t;
}

static PyObject *
Set_get_user_read(SetObject *s, void *unused)
{
	return PyBool_FromLong(s->set && s->open == 1 &&
			       pctr_set_user_read(s->set));
}

static PyObject *
Set_get_state(SetObject *s, void *unused)
{
	static const char *const st[] = { "new", "open", "closed" };

	return PyUnicode_FromString(st[s->set ? s->open : 2]);
}

/* ---- overflow ------------------------------------------------------------ */

/* in the signal handler: one atomic write to the pipe, or a drop */
static void
ovf_handler(const struct pctr_overflow_info *info, void *arg)
{
	SetObject *s = arg;
	int saved = errno;

	if (write(s->ovf_pipe[1], info, sizeof(*info)) != sizeof(*info))
		atomic_fetch_add(&s->ovf_dropped, 1);
	errno = saved;
}

static PyObject *
Set_overflow(SetObject *s, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "idx", "period", "oneshot", "freq", "signo",
				  NULL };
	struct pctr_overflow o = { .size = sizeof(o), .fn = ovf_handler };
	unsigned long long period;
	int idx, oneshot = 0, freq = 0, r;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "iK|ppi", kwlist, &idx,
					 &period, &oneshot, &freq, &o.signo))
		return NULL;
	o.period = period;
	o.flags = (oneshot ? PCTR_OVF_ONESHOT : 0) | (freq ? PCTR_OVF_FREQ : 0);
	o.arg = s;
	set_lock(s);
	if (check_state(s, 0)) {
		set_unlock(s);
		return NULL;
	}
	if (s->ovf_pipe[0] < 0 && pipe2(s->ovf_pipe, O_CLOEXEC) < 0) {
		set_unlock(s);
		return PyErr_SetFromErrno(PyExc_OSError);
	}
	fcntl(s->ovf_pipe[1], F_SETFL, O_NONBLOCK);
	r = pctr_set_overflow(s->set, idx, &o);
	set_unlock(s);
	if (r < 0)
		return raise_pctr(r);
	Py_RETURN_NONE;
}

static PyObject *
overflow_object(const struct pctr_overflow_info *in)
{
	PyObject *o = PyStructSequence_New(&OverflowType);

	if (!o)
		return NULL;
	PyStructSequence_SET_ITEM(o, 0, PyLong_FromLong(in->event));
	PyStructSequence_SET_ITEM(o, 1, PyLong_FromLong(in->instance));
	PyStructSequence_SET_ITEM(o, 2, PyLong_FromLong(in->tid));
	PyStructSequence_SET_ITEM(o, 3, PyLong_FromUnsignedLongLong(in->ip));
	PyStructSequence_SET_ITEM(o, 4,
				  PyLong_FromUnsignedLongLong(in->period));
	PyStructSequence_SET_ITEM(o, 5, PyLong_FromUnsignedLongLong(in->count));
	PyStructSequence_SET_ITEM(o, 6, PyLong_FromUnsignedLongLong(in->time));
	PyStructSequence_SET_ITEM(o, 7, PyLong_FromUnsignedLongLong(in->seq));
	if (PyErr_Occurred()) {
		Py_DECREF(o);
		return NULL;
	}
	return o;
}

/*
 * _pump() -> list of Overflow, waiting without the GIL for at least one;
 * None once the set is closed and every record has been handed out.
 * Called by one thread only (the package's pump thread).
 */
static PyObject *
Set_pump(SetObject *s, PyObject *unused)
{
	struct pctr_overflow_info buf[64];
	ssize_t n;
	PyObject *l;
	int fd = s->ovf_pipe[0];

	if (fd < 0)
		return raise_errno(EINVAL, "no overflow notification set up");
	Py_BEGIN_ALLOW_THREADS
	do
		n = read(fd, buf, sizeof(buf));
	while (n < 0 && errno == EINTR);
	Py_END_ALLOW_THREADS
	if (n < 0)
		return PyErr_SetFromErrno(PyExc_OSError);
	if (n == 0)
		Py_RETURN_NONE;
	l = PyList_New(0);
	for (size_t i = 0; l && i < n / sizeof(buf[0]); i++) {
		PyObject *o = overflow_object(&buf[i]);

		if (!o || PyList_Append(l, o) < 0)
			Py_CLEAR(l);
		Py_XDECREF(o);
	}
	return l;
}

static PyObject *
Set_overflow_stats(SetObject *s, PyObject *args)
{
	struct pctr_overflow_stats st = { .size = sizeof(st) };
	int idx = -1, r;

	if (!PyArg_ParseTuple(args, "|i", &idx))
		return NULL;
	set_lock(s);
	r = check_state(s, 1) ? 1 : pctr_set_overflow_stats(s->set, idx, &st);
	set_unlock(s);
	if (r > 0)
		return NULL;
	if (r < 0)
		return raise_pctr(r);
	return Py_BuildValue("KKk", (unsigned long long)st.notified,
			     (unsigned long long)st.lost,
			     atomic_load(&s->ovf_dropped));
}

static PyObject *
Set_wait(SetObject *s, PyObject *arg)
{
	pid_t pid = PyLong_AsLong(arg), r;
	int status;

	if (pid == -1 && PyErr_Occurred())
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	do
		r = waitpid(pid, &status, 0);
	while (r < 0 && errno == EINTR);
	Py_END_ALLOW_THREADS
	if (r < 0)
		return PyErr_SetFromErrno(PyExc_ChildProcessError);
	if (WIFEXITED(status))
		return PyLong_FromLong(WEXITSTATUS(status));
	return PyLong_FromLong(-WTERMSIG(status));
}

static PyMethodDef Set_methods[] = {
	{ "add", (PyCFunction)Set_add, METH_VARARGS,
	  "add(events) -> int\n\nAdd a list of events (\"task-clock,"
	  "page-faults\", braces group them as perf\ndoes) before open(); "
	  "returns how many were added.  Nothing is added if\none fails." },
	{ "group", (PyCFunction)Set_group, METH_VARARGS,
	  "group(first, nr)\n\nMake events first .. first + nr - 1 one "
	  "kernel group, counted together." },
	{ "_open", (PyCFunction)(void (*)(void))Set_open,
	  METH_VARARGS | METH_KEYWORDS,
	  "_open(type=0, pid=0, cpus=None): pctr_set_open() with a target" },
	{ "_open_command", (PyCFunction)Set_open_command, METH_O,
	  "_open_command(argv) -> pid: pctr_set_open_command()" },
	{ "_wait", (PyCFunction)Set_wait, METH_O,
	  "_wait(pid) -> exit status, or -signal" },
	{ "enable", (PyCFunction)Set_enable, METH_NOARGS,
	  "enable()\n\nStart counting." },
	{ "disable", (PyCFunction)Set_disable, METH_NOARGS,
	  "disable()\n\nStop counting; the counts are kept." },
	{ "reset", (PyCFunction)Set_reset, METH_NOARGS,
	  "reset()\n\nStart the counts and times again from zero." },
	{ "read", (PyCFunction)Set_read, METH_NOARGS,
	  "read() -> Reading\n\nRead every count, its enabled and running "
	  "times and the timestamp.  In user\nspace when the kernel allows "
	  "it (Reading.path says which)." },
	{ "read_values", (PyCFunction)Set_read_values, METH_NOARGS,
	  "read_values() -> tuple of int\n\nThe raw counts alone: no "
	  "times, no scaling (pctr_set_read_values())." },
	{ "read_instance", (PyCFunction)Set_read_instance, METH_O,
	  "read_instance(i) -> Reading\n\nThe counts of instance i "
	  "alone (a thread of a process, a CPU)." },
	{ "instances", (PyCFunction)Set_instances, METH_NOARGS,
	  "instances() -> list of int\n\nThe tid or CPU of each instance "
	  "the set was opened on." },
	{ "fd", (PyCFunction)Set_fd, METH_O,
	  "fd(idx) -> int\n\nThe perf_event descriptor of event idx (the "
	  "set keeps owning it)." },
	{ "_bench_read", (PyCFunction)Set_bench_read, METH_VARARGS,
	  "_bench_read(n, values=False) -> ns of n reads by the C library "
	  "alone" },
	{ "close", (PyCFunction)Set_close, METH_NOARGS,
	  "close()\n\nClose every counter.  Later calls raise pctr.Error "
	  "(EBADFD)." },
	{ "_overflow", (PyCFunction)(void (*)(void))Set_overflow,
	  METH_VARARGS | METH_KEYWORDS,
	  "_overflow(idx, period, oneshot=False, freq=False, signo=0)" },
	{ "_pump", (PyCFunction)Set_pump, METH_NOARGS,
	  "_pump() -> list of Overflow, or None at the end" },
	{ "overflow_stats", (PyCFunction)Set_overflow_stats, METH_VARARGS,
	  "overflow_stats(idx=-1) -> (notified, lost, dropped)\n\n"
	  "Overflows handed out and lost by the kernel "
	  "(pctr_set_overflow_stats()),\nand records dropped here because "
	  "the callback thread fell behind." },
	{ NULL }
};

static PyGetSetDef Set_getset[] = {
	{ "names", (getter)Set_get_names, NULL,
	  "the event names, in order (after open, as perf shows them: "
	  "'cycles:u'\nwhere the kernel allowed user mode only)" },
	{ "user_read", (getter)Set_get_user_read, NULL,
	  "True if the last read was done in user space (before any: if "
	  "it may be)" },
	{ "state", (getter)Set_get_state, NULL, "'new', 'open' or 'closed'" },
	{ NULL }
};

static PyTypeObject SetType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "pctr._pctr.Set",
	.tp_basicsize = sizeof(SetObject),
	.tp_dealloc = (destructor)Set_dealloc,
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE |
		    Py_TPFLAGS_HAVE_GC,
	.tp_doc = "The C set under pctr.Set.",
	.tp_traverse = (traverseproc)Set_traverse,
	.tp_clear = (inquiry)Set_clear,
	.tp_methods = Set_methods,
	.tp_getset = Set_getset,
	.tp_dictoffset = offsetof(SetObject, dict),
	.tp_init = (initproc)Set_init,
	.tp_new = Set_new,
};

/* ---- events and the machine --------------------------------------------- */

static int
list_cb(const struct pctr_event_info *info, void *arg)
{
	PyObject *e;
	PyGILState_STATE g = PyGILState_Ensure();
	int r = -ENOMEM;

	e = PyStructSequence_New(&EventInfoType);
	if (e) {
		PyStructSequence_SET_ITEM(e, 0, PyUnicode_FromString(info->name));
		PyStructSequence_SET_ITEM(e, 1,
					  PyUnicode_FromString(info->source));
		PyStructSequence_SET_ITEM(e, 2, PyUnicode_FromString(info->desc));
		if (!PyErr_Occurred() && PyList_Append(arg, e) == 0)
			r = 0;
		Py_DECREF(e);
	}
	PyGILState_Release(g);
	return r;
}

static PyObject *
mod_event_list(PyObject *mod, PyObject *unused)
{
	PyObject *l = PyList_New(0);
	int r;

	if (!l)
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	r = pctr_event_list(list_cb, l);
	Py_END_ALLOW_THREADS
	if (r < 0) {
		Py_DECREF(l);
		return PyErr_Occurred() ? NULL : raise_pctr(r);
	}
	return l;
}

static PyObject *
mod_machine(PyObject *mod, PyObject *unused)
{
	struct pctr_machine m = { .size = sizeof(m) };
	PyObject *pmus;
	int r;

	Py_BEGIN_ALLOW_THREADS
	r = pctr_machine_get(&m);
	Py_END_ALLOW_THREADS
	if (r < 0)
		return raise_pctr(r);
	pmus = PyList_New(0);
	for (int i = 0; pmus && i < m.nr_pmus && i < PCTR_MAX_PMUS; i++) {
		PyObject *p = Py_BuildValue("(sI)", m.pmu[i], m.pmu_type[i]);

		if (!p || PyList_Append(pmus, p) < 0)
			Py_CLEAR(pmus);
		Py_XDECREF(p);
	}
	if (!pmus)
		return NULL;
	return Py_BuildValue("{s:O,s:N,s:i,s:i,s:K,s:i,s:i,s:s,s:s}",
			     "has_pmu", m.has_pmu ? Py_True : Py_False,
			     "pmus", pmus, "paranoid", m.paranoid,
			     "user_access", m.user_access, "tsc_hz",
			     (unsigned long long)m.tsc_hz, "tsc_invariant",
			     m.tsc_invariant, "virtualized", m.virtualized,
			     "arch", m.arch, "version", pctr_version());
}

static PyObject *
mod_strerror(PyObject *mod, PyObject *arg)
{
	char buf[1024];
	int err = PyLong_AsLong(arg);

	if (err == -1 && PyErr_Occurred())
		return NULL;
	pctr_strerror_r(err, buf, sizeof(buf));
	return PyUnicode_FromString(buf);
}

static PyObject *
mod_tsc(PyObject *mod, PyObject *unused)
{
	return PyLong_FromUnsignedLongLong(pctr_tsc());
}

/* ---- regions ------------------------------------------------------------ */

static PyObject *
mod_region_init(PyObject *mod, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "events", "keep", "calibrate", "drop",
				  NULL };
	struct pctr_region_config cfg = { .size = sizeof(cfg),
					  .calibrate = PCTR_REGION_CALIBRATE };
	int drop = 0, r;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|zIIp", kwlist,
					 &cfg.events, &cfg.keep,
					 &cfg.calibrate, &drop))
		return NULL;
	cfg.disturbed = drop ? PCTR_REGION_DISTURBED_DROP
			     : PCTR_REGION_DISTURBED_KEEP;
	Py_BEGIN_ALLOW_THREADS
	r = pctr_region_init(&cfg);
	Py_END_ALLOW_THREADS
	if (r < 0)
		return raise_pctr(r);
	Py_RETURN_NONE;
}

static PyObject *
mod_region_id(PyObject *mod, PyObject *args)
{
	const char *name;
	int r;

	if (!PyArg_ParseTuple(args, "s", &name))
		return NULL;
	r = pctr_region_id(name);
	if (r < 0)
		return raise_pctr(r);
	return PyLong_FromLong(r);
}

static PyObject *
region_call(PyObject *arg, int (*fn)(int))
{
	int id = PyLong_AsLong(arg), r;

	if (id == -1 && PyErr_Occurred())
		return NULL;
	Py_BEGIN_ALLOW_THREADS
	r = fn(id);
	Py_END_ALLOW_THREADS
	if (r < 0)
		return raise_pctr(r);
	Py_RETURN_NONE;
}

static PyObject *
mod_region_begin(PyObject *mod, PyObject *arg)
{
	return region_call(arg, pctr_region_begin_id);
}

static PyObject *
mod_region_end(PyObject *mod, PyObject *arg)
{
	return region_call(arg, pctr_region_end_id);
}

static PyObject *
mod_region_flush(PyObject *mod, PyObject *unused)
{
	int r = pctr_region_flush();

	if (r < 0)
		return raise_pctr(r);
	Py_RETURN_NONE;
}

/* a Summary from pctr_stats_get()-like @fn, or None where it has none */
static PyObject *
summary_of(const struct pctr_stats *st, int idx,
	   int (*fn)(const struct pctr_stats *, int, struct pctr_summary *))
{
	struct pctr_summary s = { .size = sizeof(s) };
	double v[9];
	PyObject *o;

	if (fn(st, idx, &s) < 0)
		Py_RETURN_NONE;
	o = PyStructSequence_New(&SummaryType);
	if (!o)
		return NULL;
	v[0] = s.total, v[1] = s.min, v[2] = s.mean, v[3] = s.max;
	v[4] = s.stddev, v[5] = s.std_error, v[6] = s.ci95_low;
	v[7] = s.ci95_high;
	PyStructSequence_SET_ITEM(o, 0, PyLong_FromUnsignedLongLong(s.n));
	for (int i = 0; i < 8; i++)
		PyStructSequence_SET_ITEM(o, i + 1, PyFloat_FromDouble(v[i]));
	if (PyErr_Occurred()) {
		Py_DECREF(o);
		return NULL;
	}
	return o;
}

/* {name: {"count": Summary, "per_second": Summary}} and the time */
static PyObject *
stats_dict(const struct pctr_stats *st)
{
	PyObject *d = PyDict_New();
	int nr = pctr_stats_nr(st);

	for (int i = -1; d && i < nr; i++) {
		PyObject *e = Py_BuildValue(
			"{s:N,s:N}", "count",
			summary_of(st, i, pctr_stats_get), "per_second",
			i < 0 ? (Py_INCREF(Py_None), Py_None)
			      : summary_of(st, i, pctr_stats_per_second));

		if (!e || PyDict_SetItemString(d, pctr_stats_name(st, i), e))
			Py_CLEAR(d);
		Py_XDECREF(e);
	}
	return d;
}

static PyObject *
mod_regions(PyObject *mod, PyObject *unused)
{
	struct pctr_regions *rs;
	PyObject *l;
	int r;

	Py_BEGIN_ALLOW_THREADS
	r = pctr_regions_get(&rs);
	Py_END_ALLOW_THREADS
	if (r < 0)
		return raise_pctr(r);
	l = PyList_New(0);
	for (int i = 0; l && i < pctr_regions_nr(rs); i++) {
		const struct pctr_stats *st = pctr_regions_stats(rs, i);
		uint64_t dist = 0;
		PyObject *t;

		pctr_stats_disturbed(st, &dist);
		t = Py_BuildValue("(siNK)", pctr_regions_name(rs, i),
				  pctr_regions_threads(rs, i), stats_dict(st),
				  (unsigned long long)dist);
		if (!t || PyList_Append(l, t) < 0)
			Py_CLEAR(l);
		Py_XDECREF(t);
	}
	pctr_regions_free(rs);
	return l;
}

/* ---- the module --------------------------------------------------------- */

static PyMethodDef mod_methods[] = {
	{ "event_list", mod_event_list, METH_NOARGS,
	  "event_list() -> list of EventInfo: every event of this machine" },
	{ "machine", mod_machine, METH_NOARGS,
	  "machine() -> dict: pctr_machine_get()" },
	{ "strerror", mod_strerror, METH_O,
	  "strerror(errno) -> str: pctr_strerror()'s general text" },
	{ "tsc", mod_tsc, METH_NOARGS, "tsc() -> int: the timestamp counter" },
	{ "region_init", (PyCFunction)(void (*)(void))mod_region_init,
	  METH_VARARGS | METH_KEYWORDS,
	  "region_init(events=None, keep=0, calibrate=1000, drop=False)" },
	{ "region_id", mod_region_id, METH_VARARGS,
	  "region_id(name) -> int" },
	{ "region_begin", mod_region_begin, METH_O, "region_begin(id)" },
	{ "region_end", mod_region_end, METH_O, "region_end(id)" },
	{ "region_flush", mod_region_flush, METH_NOARGS, "region_flush()" },
	{ "regions", mod_regions, METH_NOARGS,
	  "regions() -> list of (name, threads, stats, disturbed)" },
	{ NULL }
};

static PyStructSequence_Field count_fields[] = {
	{ "value", "the raw count, while the event was on a counter" },
	{ "enabled", "nanoseconds the event was enabled" },
	{ "running", "nanoseconds it was counting (< enabled: multiplexed)" },
	{ "scaled", "value * enabled / running: the estimate for the whole "
		    "enabled time" },
	{ "low", "lower bound of the count over the enabled time "
		 "(pctr_scale_bounds()); NaN when unknown" },
	{ "high", "upper bound; NaN when unknown" },
	{ NULL }
};

static PyStructSequence_Field overflow_fields[] = {
	{ "event", "index of the event that overflowed" },
	{ "instance", "the set's instance whose counter overflowed" },
	{ "tid", "the thread that was running" },
	{ "ip", "its program counter" },
	{ "period", "events since the previous overflow" },
	{ "count", "the event's count on that thread at the overflow" },
	{ "time", "perf clock time of the overflow, ns" },
	{ "seq", "1 for the first overflow of the event on tid, then 2..." },
	{ NULL }
};

static PyStructSequence_Field summary_fields[] = {
	{ "n", "intervals" },
	{ "total", "sum (for rates: total count over total time)" },
	{ "min", NULL },
	{ "mean", NULL },
	{ "max", NULL },
	{ "stddev", "sample standard deviation" },
	{ "std_error", "standard error of the mean (NaN for n < 2)" },
	{ "ci95_low", "95% confidence interval of the mean (NaN for n < 2)" },
	{ "ci95_high", NULL },
	{ NULL }
};

static PyStructSequence_Field event_fields[] = {
	{ "name", "what to give to pctr.count() or Set.add()" },
	{ "source", "'generic', 'software', 'cache', 'sysfs:PMU', 'pfm:PMU'" },
	{ "desc", "a one-line description, or ''" },
	{ NULL }
};

static PyStructSequence_Desc count_desc = {
	"pctr.Count", "One event's count: value, enabled and running times, "
		      "scaled estimate and bounds.", count_fields, 6
};
static PyStructSequence_Desc overflow_desc = {
	"pctr.Overflow", "One overflow of an event, as the callback gets it.",
	overflow_fields, 8
};
static PyStructSequence_Desc summary_desc = {
	"pctr.Summary", "Statistics of one series of intervals.",
	summary_fields, 9
};
static PyStructSequence_Desc event_desc = {
	"pctr.EventInfo", "One event of pctr.events().", event_fields, 3
};

static struct PyModuleDef moddef = {
	PyModuleDef_HEAD_INIT, "pctr._pctr",
	"The C half of pctr: use the package pctr.", -1, mod_methods,
};

static int
add_type(PyObject *m, const char *name, PyTypeObject *t)
{
	Py_INCREF(t);
	if (PyModule_AddObject(m, name, (PyObject *)t) < 0) {
		Py_DECREF(t);
		return -1;
	}
	return 0;
}

PyMODINIT_FUNC
PyInit__pctr(void)
{
	PyObject *m;

	if (PyType_Ready(&ReadingType) < 0 || PyType_Ready(&SetType) < 0 ||
	    PyStructSequence_InitType2(&CountType, &count_desc) < 0 ||
	    PyStructSequence_InitType2(&OverflowType, &overflow_desc) < 0 ||
	    PyStructSequence_InitType2(&SummaryType, &summary_desc) < 0 ||
	    PyStructSequence_InitType2(&EventInfoType, &event_desc) < 0)
		return NULL;
	m = PyModule_Create(&moddef);
	if (!m)
		return NULL;
	Error = PyErr_NewExceptionWithDoc(
		"pctr.Error",
		"A failed libpctr call: an OSError whose errno is the "
		"library's and whose\nstrerror is pctr_strerror()'s text "
		"(why it failed, and what to do).",
		PyExc_OSError, NULL);
	if (!Error || PyModule_AddObject(m, "Error", Error) < 0 ||
	    add_type(m, "Set", &SetType) || add_type(m, "Reading", &ReadingType) ||
	    add_type(m, "Count", &CountType) ||
	    add_type(m, "Overflow", &OverflowType) ||
	    add_type(m, "Summary", &SummaryType) ||
	    add_type(m, "EventInfo", &EventInfoType)) {
		Py_DECREF(m);
		return NULL;
	}
	Py_INCREF(Error);
	PyModule_AddIntConstant(m, "TARGET_THREAD", PCTR_TARGET_THREAD);
	PyModule_AddIntConstant(m, "TARGET_PROCESS", PCTR_TARGET_PROCESS);
	PyModule_AddIntConstant(m, "TARGET_PID", PCTR_TARGET_PID);
	PyModule_AddIntConstant(m, "TARGET_TID", PCTR_TARGET_TID);
	PyModule_AddIntConstant(m, "TARGET_CPU", PCTR_TARGET_CPU);
	PyModule_AddIntConstant(m, "MAX_EVENTS", PCTR_MAX_EVENTS);
	return m;
}
