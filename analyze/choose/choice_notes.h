/*
 * choice_notes.h - the sentences that explain a choice (choice_notes.c).
 */
#ifndef AN_CHOICE_NOTES_H
#define AN_CHOICE_NOTES_H

#include <stddef.h>

#include "propose.h"

/* When fewer than c->k ops were chosen, a sentence saying why into buf;
 * else "". */
void an_choice_note(const an_choice *c, size_t chosen, char *buf, size_t cap);

/* When adaptive opcodes ran, a sentence saying how much of the run they
 * are and whether they were mined into buf; else "". */
void an_adaptive_note(const an_choice *c, char *buf, size_t cap);

#endif
