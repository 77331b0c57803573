int acme_version() { return 1; }
