/*
 * choice_notes.c - the sentences that explain a choice: why fewer ops than
 * asked for were chosen, and how much adaptive opcodes weigh (both tools
 * print them).
 */
#include "choice_notes.h"

#include <stdio.h>

void an_choice_note(const an_choice *c, size_t chosen, char *buf, size_t cap)
{
    size_t rest = c->candidates - chosen;
    char least[64], others[64];
    if (c->min_saving > 0)
        snprintf(least, sizeof least, "save%s at least %g%% of all dispatches%s", chosen == 1 ? "s" : "",
                 100 * c->min_saving, chosen > 1 ? " each" : "");
    else
        snprintf(least, sizeof least, "remove%s any dispatch", chosen == 1 ? "s" : "");
    if (rest == 1)
        snprintf(others, sizeof others, "the other candidate considered saves");
    else
        snprintf(others, sizeof others, "the other %zu candidates considered save", rest);
    buf[0] = '\0';
    if (chosen >= c->k)
        return;
    if (c->executed == 0)
        snprintf(buf, cap, "No macro op: no n-gram ran.");
    else if (chosen == 0)
        snprintf(buf, cap, "No macro op would %s: none of the %zu candidates considered does.", least,
                 c->candidates);
    else if (chosen == c->candidates && c->candidates < c->executed)
        snprintf(buf, cap, "Only %zu of the %zu macro ops asked for: every candidate considered was "
                           "chosen (%zu of %zu n-grams that ran; --pool considers more).",
                 chosen, c->k, c->candidates, c->executed);
    else if (chosen == c->candidates)
        snprintf(buf, cap, "Only %zu of the %zu macro ops asked for: every n-gram that ran was chosen.",
                 chosen, c->k);
    else
        snprintf(buf, cap, "Only %zu of the %zu macro ops asked for %s: %s %snothing beside the ops "
                           "chosen.",
                 chosen, c->k, least, others, c->min_saving > 0 ? "less, or " : "");
}

void an_adaptive_note(const an_choice *c, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (c->adaptive_ops == 0)
        return;
    snprintf(buf, cap,
             "%zu adaptive opcode%s (rewritten in place by the interpreter at run time) ran, "
             "%.2f%% of the dispatches: %s.",
             c->adaptive_ops, c->adaptive_ops == 1 ? "" : "s", 100 * c->adaptive_share,
             c->include_adaptive ? "mined like the others (--include-adaptive)"
                                 : "in no n-gram, as no fixed macro op can contain one "
                                   "(--include-adaptive mines them too)");
}
