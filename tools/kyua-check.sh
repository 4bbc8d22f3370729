#!/bin/sh
# Run the Kyua suite and end with the line CI counts:
# "N passed, N failed, N skipped".  Exit 1 if anything failed or broke,
# or if no test ran.
#
#   kyua-check.sh [FILTER ...]   FILTER: a program (tests/pdwait_test) or
#                                case (tests/pdwait_test:name) to run
# RESULTS_DIR: where the database and reports go (tests/results).
set -u

dir=${RESULTS_DIR:-tests/results}
mkdir -p "$dir"
db="$dir/results.db"
log="$dir/kyua.log"
rm -f "$db"

# As root, run the require.user=unprivileged cases as nobody.
user=
[ "$(id -u)" -eq 0 ] && user=unprivileged_user=nobody

kyua --logfile="$log" ${user:+-v "$user"} test --results-file="$db" "$@"
status=$?
kyua --logfile="$log" report --results-file="$db" \
    --results-filter=skipped,xfail,broken,failed >"$dir/report.txt" 2>&1
kyua --logfile="$log" report-junit --results-file="$db" \
    --output="$dir/junit.xml" >/dev/null 2>&1
cat "$dir/report.txt"

# "Test cases: T total, S skipped, X expected failures, B broken, F failed"
line=$(grep -E '^Test cases: ' "$dir/report.txt" | tail -n 1)
num() { echo "$line" | sed -n "s/.* \([0-9][0-9]*\) $1.*/\1/p"; }
total=$(echo "$line" | sed -n 's/^Test cases: \([0-9]*\) total.*/\1/p')
skipped=$(num skipped)
xfail=$(num 'expected failures')
broken=$(num broken)
failed=$(num failed)
total=${total:-0} skipped=${skipped:-0} broken=${broken:-0} failed=${failed:-0}
xfail=${xfail:-0}
bad=$((broken + failed))
# An expected failure (a known limitation, atf_tc_expect_fail) is not a
# pass: it counts with the skipped.
skipped=$((skipped + xfail))
passed=$((total - skipped - bad))
[ "$total" -eq 0 ] && bad=$((bad + 1))
# What a failed or broken case printed, so that a CI log shows why.
if [ "$bad" -gt 0 ]; then
	kyua --logfile="$log" report --results-file="$db" --verbose \
	    --results-filter=broken,failed 2>&1 | awk '
	    /^===> Failed tests/ { exit }
	    /^===> / { show = ($0 !~ /Execution context/) }
	    /^Metadata:/ { meta = 1; next }
	    meta && /^    / { next }
	    { meta = 0 }
	    show' | head -n 200
fi
echo "$passed passed, $bad failed, $skipped skipped"
[ "$bad" -eq 0 ] && [ "$status" -eq 0 ]
