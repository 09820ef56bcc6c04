#include "nsvm.h"

/* Go cannot call a C function pointer; it calls this. */
int32_t nsvm_call_progress(nsvm_progress_fn f, void *user, const char *json, int64_t len) {
	return f(user, json, len);
}
