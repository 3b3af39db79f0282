/// What one summary took in a rebuild of the console's summaries: its statements' time, named by the table they
/// write (`*_changes` tables, emptied by the rebuild, count with the summary they feed).
public struct SummaryRebuildTime: Sendable, Equatable {
    /// The summary's table; `members.cohort_month` for the members' cohorts.
    public var summary: String
    public var duration: Duration

    /// The summary a rebuild statement writes: the table after `INSERT INTO`, `DELETE FROM` or `UPDATE`.
    static func summary(writtenBy statement: String) -> String {
        let words = statement.split(whereSeparator: \.isWhitespace).prefix(3).map(String.init)
        let table: String
        switch words.first?.uppercased() {
        case "UPDATE": table = words.count > 1 ? words[1] : statement
        case "INSERT", "DELETE": table = words.count > 2 ? words[2] : statement
        default: table = String(statement.prefix(40))
        }
        if table == "members" { return "members.cohort_month" }
        if table == "sighting_queue" { return "shared_sightings" }
        return table.hasSuffix("_day_changes") ? String(table.dropLast("_changes".count)) + "s" : table
    }
}
