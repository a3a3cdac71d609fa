/* SPDX-License-Identifier: MIT */
/* The JSON sb-host prints (status, check): strings, escaped. */
#ifndef SOCKBOOST_HOST_JSON_H
#define SOCKBOOST_HOST_JSON_H

/* Print S as a JSON string: every byte outside printable ASCII as \uXXXX. */
extern void sb_host_json_string (const char *s);

/* Print "true" or "false". */
extern void sb_host_json_bool (int b);

#endif /* SOCKBOOST_HOST_JSON_H */
