"""Header include closure: every `#include` of a public header resolves for a consumer."""
