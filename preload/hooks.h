/* SPDX-License-Identifier: MIT */
/* Shared by the hook files: the only symbols the library exports. */
#ifndef SOCKBOOST_HOOKS_H
#define SOCKBOOST_HOOKS_H

/* Everything else is hidden (-fvisibility=hidden, libsockboost.syms). */
#define SB_EXPORT __attribute__ ((visibility ("default")))

#endif /* SOCKBOOST_HOOKS_H */
