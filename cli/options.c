// SPDX-License-Identifier: GPL-2.0-only
/*
 * The one command-line convention of every tlbscope command, on getopt_long(3) as git,
 * perf and trace-cmd users expect it: "--opt=value" and "--opt value", "-C1" and "-C 1",
 * flags clustered ("-bn3"), unique prefixes of long names, "--" ending the options, "-h"
 * and "--help" everywhere.  Arguments that are not options come back in the order given;
 * with CLI_STOP_AT_ARG (record's "record [options] COMMAND ...") the first one ends the
 * options, as in perf record.  Messages name the command and the option as typed.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

void cli_parser_init(struct cli_parser *p, const char *cmd, const char *usage,
		     const struct cli_option *opts, unsigned flags, int argc, char **argv)
{
	size_t n = 0, s = 0;

	memset(p, 0, sizeof(*p));
	p->cmd = cmd;
	p->usage = usage;
	p->argc = argc;
	p->argv = argv;
	p->opts = opts;
	p->stop_at_arg = flags & CLI_STOP_AT_ARG;
	/* '-': non-options come back as 1, in order; '+': the first one ends the options */
	p->shorts[s++] = flags & CLI_STOP_AT_ARG ? '+' : '-';
	p->shorts[s++] = ':';			/* a missing value is ':', not '?' */
	p->shorts[s++] = 'h';
	for (const struct cli_option *o = opts; o->name; o++) {
		if (n >= CLI_MAX_OPTS)
			break;
		p->longs[n++] = (struct option){ o->name, o->value ? required_argument : no_argument,
						 NULL, o->key };
		for (int k = 0; k < 2; k++) {
			int c = k ? o->old : o->key;

			if (c > 0 && c < 128) {
				p->shorts[s++] = (char)c;
				if (o->value)
					p->shorts[s++] = ':';
			}
		}
	}
	p->longs[n++] = (struct option){ "help", no_argument, NULL, 'h' };
	p->longs[n] = (struct option){ 0 };
	p->shorts[s] = '\0';
	optind = 0;		/* glibc: start over, whatever parsed argv before */
	opterr = 0;
}

/* The long option at argv[optind - 1] as typed, without "=value" */
static const char *typed(struct cli_parser *p, char *buf, size_t len)
{
	const char *a = optind > 0 && optind <= p->argc ? p->argv[optind - 1] : "?";
	size_t n = strcspn(a, "=");

	if (strncmp(a, "--", 2) || n >= len) {
		if (optopt > 0 && optopt < 128) {
			snprintf(buf, len, "-%c", optopt);
			return buf;
		}
		return a;
	}
	memcpy(buf, a, n);
	buf[n] = '\0';
	return buf;
}

int cli_parser_next(struct cli_parser *p, const char **val)
{
	char name[64];
	int c;

	*val = NULL;
	if (p->done)
		return CLI_END;
	if (p->after_dashes) {
		if (p->rest >= p->argc) {
			p->done = true;
			return CLI_END;
		}
		*val = p->argv[p->rest++];
		return CLI_ARG;
	}
	c = getopt_long(p->argc, p->argv, p->shorts, p->longs, NULL);
	switch (c) {
	case -1:
		p->rest = optind;
		p->done = true;
		/* after "--": what follows are arguments, unless the caller takes them whole */
		if (!p->stop_at_arg && p->rest < p->argc) {
			p->done = false;
			p->after_dashes = true;
		}
		return p->done ? CLI_END : cli_parser_next(p, val);
	case 1:
		*val = optarg;
		return CLI_ARG;
	case 'h':
		fputs(p->usage, stdout);
		return CLI_HELP;
	case ':':
		error("%s: option '%s' needs a value", p->cmd, typed(p, name, sizeof(name)));
		return CLI_BAD;
	case '?': {
		const char *a = typed(p, name, sizeof(name));
		const char *eq = strchr(p->argv[optind > 0 ? optind - 1 : 0], '=');

		/* "--json=1": a flag given a value */
		for (const struct cli_option *o = p->opts; o->name && eq; o++)
			if (!o->value && !strncmp(o->name, a + 2, strlen(a + 2))) {
				error("%s: option '%s' takes no value", p->cmd, a);
				return CLI_BAD;
			}
		if (!strncmp(a, "--", 2) && !optopt) {
			int matches = 0;

			for (const struct cli_option *o = p->opts; o->name; o++)
				matches += !strncmp(o->name, a + 2, strlen(a + 2));
			if (matches > 1) {
				error("%s: option '%s' is ambiguous\n%s", p->cmd, a, p->usage);
				return CLI_BAD;
			}
		}
		error("%s: unknown option '%s'\n%s", p->cmd, a, p->usage);
		return CLI_BAD;
	}
	default:
		*val = optarg;
		for (const struct cli_option *o = p->opts; o->name; o++)
			if (o->old && c == o->old)
				return o->key;
		return c;
	}
}

char **cli_parser_rest(struct cli_parser *p, int *n)
{
	*n = p->argc - p->rest;
	return p->argv + p->rest;
}
