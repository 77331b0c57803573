"""`shiplint init`: a starting manifest written from built artifacts."""
