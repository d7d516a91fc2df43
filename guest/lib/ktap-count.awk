# The passed, failed and skipped results among KTAP result lines at one
# level: those that start with prefix (awk -v prefix=...: "" for a test's
# own output, "  " for its results inside the suite's), deeper ones being
# indented further. A known failure (# TODO) counts with the skipped.
# Prints "PASSED FAILED SKIPPED". Run by the suite in the guest
# (/lib/iomap/ktap-count.awk) and by host/run-tests.sh on a console log.
substr($0, 1, length(prefix)) == prefix {
	line = substr($0, length(prefix) + 1)
	if (line ~ /^(not )?ok [0-9]+ [^#]*# (SKIP|TODO)/)
		s++
	else if (line ~ /^ok [0-9]+/)
		p++
	else if (line ~ /^not ok [0-9]+/)
		f++
}
END { print p + 0, f + 0, s + 0 }
