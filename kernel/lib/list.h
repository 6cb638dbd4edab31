/*
 * Intrusive doubly linked lists, with the names Linux readers expect.
 * No locking: the owner of a list says which lock protects it.
 */
#ifndef KERNEL_LIST_H
#define KERNEL_LIST_H

#include <stddef.h>
#include <stdbool.h>

struct list_head {
	struct list_head *next, *prev;
};

#define LIST_HEAD_INIT(name)                                                   \
	{                                                                      \
		&(name), &(name)                                               \
	}
#define LIST_HEAD(name) struct list_head name = LIST_HEAD_INIT(name)

#define container_of(ptr, type, member)                                        \
	((type *)((char *)(ptr)-offsetof(type, member)))

static inline void
INIT_LIST_HEAD(struct list_head *h)
{
	h->next = h;
	h->prev = h;
}

static inline void
list_insert(struct list_head *n, struct list_head *prev, struct list_head *next)
{
	next->prev = n;
	n->next = next;
	n->prev = prev;
	prev->next = n;
}

static inline void
list_add(struct list_head *n, struct list_head *head)
{
	list_insert(n, head, head->next);
}

static inline void
list_add_tail(struct list_head *n, struct list_head *head)
{
	list_insert(n, head->prev, head);
}

/* Leaves the entry self-linked so list_empty() on it says "not queued". */
static inline void
list_del_init(struct list_head *e)
{
	e->next->prev = e->prev;
	e->prev->next = e->next;
	INIT_LIST_HEAD(e);
}

/* RCU lists: one writer at a time (the owner's lock), readers under
 * rcu_read_lock moving with list_next_rcu.  An entry is published whole
 * (release), and an unlinked one keeps its next pointer, so a reader
 * standing on it can still move on to the end of the list (never
 * list_del_init: the entry would point at itself and the reader loop);
 * its memory may go only a grace period later (synchronize_rcu). */
static inline void
list_add_tail_rcu(struct list_head *n, struct list_head *head)
{
	n->next = head;
	n->prev = head->prev;
	__atomic_store_n(&head->prev->next, n, __ATOMIC_RELEASE);
	head->prev = n;
}

static inline void
list_del_rcu(struct list_head *e)
{
	e->prev->next = e->next;
	e->next->prev = e->prev;
}

static inline struct list_head *
list_next_rcu(struct list_head *e)
{
	return __atomic_load_n(&e->next, __ATOMIC_ACQUIRE);
}

static inline bool
list_empty(const struct list_head *h)
{
	return h->next == h;
}

#define list_entry(ptr, type, member) container_of(ptr, type, member)
#define list_first_entry(head, type, member)                                   \
	list_entry((head)->next, type, member)
#define list_for_each_entry(pos, head, member)                                 \
	for (pos = list_entry((head)->next, __typeof__(*pos), member);         \
	     &pos->member != (head);                                           \
	     pos = list_entry(pos->member.next, __typeof__(*pos), member))
/* The walk of an RCU list (above): each step an acquire load of next. */
#define list_for_each_entry_rcu(pos, head, member)                             \
	for (pos = list_entry(list_next_rcu(head), __typeof__(*pos), member);  \
	     &pos->member != (head);                                           \
	     pos = list_entry(list_next_rcu(&pos->member), __typeof__(*pos),   \
	                      member))
#define list_for_each_entry_safe(pos, n, head, member)                         \
	for (pos = list_entry((head)->next, __typeof__(*pos), member),         \
	    n = list_entry(pos->member.next, __typeof__(*pos), member);        \
	     &pos->member != (head);                                           \
	     pos = n, n = list_entry(n->member.next, __typeof__(*n), member))

#endif
