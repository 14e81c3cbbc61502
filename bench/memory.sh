#!/usr/bin/env bash
# Peak memory of `pipectl run` on 100k and 1M records, per reader (CSV, XML, JSON array, JSON
# Lines), into an entity without a unique key, so that nothing but the reader could grow with the
# input: the ratio 1M/100k shows whether memory is flat. Usage: bench/memory.sh [N_SMALL N_LARGE]
set -euo pipefail
cd "$(dirname "$0")/.."
small=${1:-100000} large=${2:-1000000}
scripts/setup
if [[ ! -x /usr/bin/time ]]; then
    [[ "$(uname)" == "Darwin" ]] && { echo "memory.sh: needs GNU time (brew install gnu-time)" >&2; exit 1; }
    sudo=""; [[ $(id -u) -eq 0 ]] || sudo="sudo"
    $sudo apt-get install -y -qq time >/dev/null
fi
swift build -c release --product pipectl >/dev/null
data=bench/data out=bench/out
mkdir -p "$data" "$out"
[[ -f $data/records-$large.jsonl && -f $data/records-$small.jsonl ]] || python3 bench/make-records.py "$data" "$small" "$large"

pipeline() {  # format, N
    local read
    case $1 in
        csv) read="{ csv: ../data/records-$2.csv }" ;;
        xml) read="{ xml: ../data/records-$2.xml, record: items/item }" ;;
        json) read="{ json: ../data/records-$2.json }" ;;
        jsonl) read="{ jsonl: ../data/records-$2.jsonl }" ;;
    esac
    cat > "$out/$1-$2.yaml" <<YAML
version: 1
name: memory-$1-$2
store: { path: $1-$2.sqlite }
entities:
  Reading: { attributes: { name: string, quantity: double, unit: string, aisle: string } }
sources:
  - name: records
    read: $read
    load: { Reading: { name: name, quantity: quantity, unit: unit, aisle: aisle } }
YAML
    echo "$out/$1-$2.yaml"
}

printf '%-6s %12s %12s %12s %12s %7s\n' reader "peak $small" "peak $large" "time $small" "time $large" ratio
for format in csv xml json jsonl; do
    declare -A peak=() secs=()
    for n in "$small" "$large"; do
        file=$(pipeline "$format" "$n")
        read -r kb s < <( { /usr/bin/time -f "%M %e" .build/release/pipectl run -q "$file" >/dev/null; } 2>&1 | tail -1)
        peak[$n]=$kb secs[$n]=$s
    done
    ratio=$(python3 -c "print(f'{${peak[$large]} / ${peak[$small]}:.2f}')")
    printf '%-6s %9.1f MB %9.1f MB %10.2f s %10.2f s %6sx\n' "$format" \
        "$(python3 -c "print(${peak[$small]}/1024)")" "$(python3 -c "print(${peak[$large]}/1024)")" \
        "${secs[$small]}" "${secs[$large]}" "$ratio"
done
