#!/usr/bin/env bash
# Run the prepared tree's checkpatch.pl --strict over every patch of every
# topic in patches/series; any error, warning or check fails. Except two:
# FILE_PATH_CHANGES asks whether MAINTAINERS needs updating for every file
# a patch adds, though MAINTAINERS assigns files by folder (a new
# fs/iomap/internal.h is the iomap maintainers' like the rest of
# fs/iomap/), which it does not look at. UNKNOWN_COMMIT_ID looks up the
# commit a Fixes: tag names in the prepared tree, which is
# linux-source-6.12 as one commit without history, so it can find none;
# the tag's form (12 hex digits, the subject in quotes) is still checked
# (BAD_FIXES_TAG).
set -euo pipefail
# shellcheck source=host/common.sh
. "$(dirname "$0")/common.sh"

bad=0 n=0
while read -r patch; do
	n=$((n + 1))
	if ! out=$(cd "$SRC_DIR" && ./scripts/checkpatch.pl --strict \
		--ignore FILE_PATH_CHANGES,UNKNOWN_COMMIT_ID --quiet \
		"$PATCH_DIR/$patch" 2>&1); then
		bad=$((bad + 1))
		printf '%s:\n%s\n' "$patch" "$out"
	fi
done < <(series_patches)
echo "checkpatch --strict: $n patches, $bad with findings"
[ "$bad" -eq 0 ]
