// Which invocation each journal entry is charged to. A world gives each invocation a window
// of the journal: the entries journaled from its client's start until the client was reaped.
// A window closes on the clock, but a client's bytes need not arrive by then: a killed
// client's request that the provider reads after the kill (it was written, or held behind a
// held answer on the same connection) is journaled in a later window, or between two.
// So requests are charged by the connection they came on (JournalEntry::client_port):
//
//  - a connection belongs to the invocation whose window held its first request (the entry
//    marked new_connection, or the first entry of a port the journal has not named yet);
//    one whose first request came between two windows, when no client ran, belongs to the
//    invocation that ran last;
//  - every later request on that connection is charged to it, whichever window it fell in;
//  - an entry that names no connection is charged by its window alone, as before.
//
// A fleet's clients each have a listener port of their own (JournalEntry::port): each
// client's entries are those on its port. Under traffic, a service instance's operations
// share its connections, so each request is charged by what it carries: a create by its
// operation field's value (the payload's orderId; under a shape, its operationField, which
// must carry the payload's field of that name or one of its text values, as an SDK maps
// orderId to its API's Name), and a lookup or a
// later create by the key an earlier create of the operation carried (or, without keys, by
// the field it looks up by). A rerun after its instance was killed carries the same as the
// killed run: of an operation's runs, a request is the last one's to begin before its
// connection was first seen (a restarted process opens connections of its own). Both worlds
// are attributed here, by the same rule, so that a simulated run and a real one attribute
// alike.
#pragma once

#include <vector>

#include "provider/journal.hpp"
#include "scenarios/driver/run_result.hpp"
#include "scenarios/model/scenario.hpp"

namespace retryproof::scenarios {

// Each invocation's entries, by its index, in seq order: by connection when the invocations
// ran one after another, by listener port in a fleet. Entries no invocation is charged with
// (a journal's requests before the first window, or without a connection after the last)
// are in no list.
std::vector<std::vector<provider::JournalEntry>> charged_entries(
    const std::vector<provider::JournalEntry>& journal,
    const std::vector<InvocationResult>& invocations, bool fleet);

// Under traffic: by what each request carries. `operation_field` names the payload's field the
// provider journals as an entry's operation.
std::vector<std::vector<provider::JournalEntry>> charged_by_operation(
    const std::vector<provider::JournalEntry>& journal,
    const std::vector<InvocationResult>& invocations, const std::string& operation_field);

// The rule a scenario's run is attributed by: traffic, or a fleet whose clients had no port
// of their own (sessions), by what requests carry; a fleet by port; else by connection.
std::vector<std::vector<provider::JournalEntry>> charged_for(
    const Scenario& scenario, const std::vector<provider::JournalEntry>& journal,
    const std::vector<InvocationResult>& invocations);

// Writes into each invocation what charged_entries found: a fleet client's window (its first
// and last entry) and every seq charged to it (InvocationResult::seqs); one client after
// another, the seqs charged to it from outside its window (InvocationResult::late_seqs).
void record_charges(const std::vector<std::vector<provider::JournalEntry>>& entries,
                    std::vector<InvocationResult>& invocations, bool fleet);

}  // namespace retryproof::scenarios
