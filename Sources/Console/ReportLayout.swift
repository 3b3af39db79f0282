import ConsoleCharts
import Foundation

/// A4 pages (595 × 842 points, SVG) filled top to bottom, the way a printed report is laid out: a section's title
/// is never the last thing on a page, text wraps within the margins, a table that runs over a page is continued on
/// the next under its header again, a chart stays whole; every page is numbered. Widths are estimated from the
/// font size (every character as wide as DejaVu Sans's widest letters and digits), so nothing reaches the margins.
struct ReportLayout {
    static let width = 595.0
    static let height = 842.0
    static let margin = 40.0
    static let contentWidth = width - 2 * margin
    /// The most room a character takes, in em: more than DejaVu Sans's digits (0.636) and lower-case letters.
    static let characterWidth = 0.66

    let rightToLeft: Bool
    /// What a continued table's title says after it ("(continued)" in the report's language).
    let continued: String
    private var finished: [String] = []
    private var body = ""
    private var y = margin

    init(rightToLeft: Bool, continued: String) {
        self.rightToLeft = rightToLeft
        self.continued = continued
    }

    /// The widest `text` can be at font size `size`.
    static func extent(_ text: String, size: Double) -> Double { Double(text.count) * size * characterWidth }

    /// `text` in lines that each fit `width` at `size`, broken between words (a word too long for a line is cut).
    static func wrapped(_ text: String, size: Double, width: Double = contentWidth) -> [String] {
        let most = max(1, Int(width / (size * characterWidth)))
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: true).map(String.init) {
            var word = word
            while word.count > most {
                if !current.isEmpty {
                    lines.append(current)
                    current = ""
                }
                lines.append(String(word.prefix(most)))
                word = String(word.dropFirst(most))
            }
            if current.isEmpty {
                current = word
            } else if current.count + 1 + word.count <= most {
                current += " " + word
            } else {
                lines.append(current)
                current = word
            }
        }
        if !current.isEmpty || lines.isEmpty { lines.append(current) }
        return lines
    }

    /// `text` cut to fit `width` at `size`, an ellipsis saying so.
    static func fitted(_ text: String, size: Double, width: Double) -> String {
        let most = max(1, Int(width / (size * characterWidth)))
        return text.count <= most ? text : String(text.prefix(most - 1)) + "…"
    }

    /// Starts a new page when fewer than `height` points are left on this one.
    mutating func keep(_ height: Double) {
        if y + height > Self.height - Self.margin - 20, y > Self.margin { newPage() }
    }

    mutating func newPage() {
        finished.append(body)
        body = ""
        y = Self.margin
    }

    /// The report's title.
    mutating func title(_ text: String) {
        for line in Self.wrapped(text, size: 18) {
            y += 24
            write(line, x: 0, size: 18, weight: "bold")
        }
    }

    /// A section's title, kept on a page with the `following` points of what comes after it.
    mutating func section(_ title: String, following: Double = 40) {
        keep(30 + following)
        y += 14
        paragraph(title, size: 14, weight: "bold")
    }

    /// A table's or a chart's heading, kept on the page with the few lines that follow it.
    mutating func heading(_ text: String) {
        keep(60)
        y += 6
        paragraph(text, size: 10, weight: "bold")
    }

    /// Text wrapped within the margins.
    mutating func paragraph(_ text: String, size: Double = 11, weight: String? = nil) {
        for line in Self.wrapped(text, size: size) {
            keep(size + 5)
            y += size + 5
            write(line, x: 0, size: size, weight: weight)
        }
    }

    /// A table: `columns` their share of the width (summing to 1); a row's cells cut to fit; on a new page the
    /// table goes on under `title` (continued) and its header again. `emphasised` rows are bold (a total).
    mutating func table(title: String, header: [String], columns: [Double], rows: [[String]], emphasised: Set<Int> = []) {
        let size = 9.5
        let rowHeight = size + 5
        func drawHeader() {
            y += rowHeight
            for (index, cell) in header.enumerated() { cellText(cell, column: index, columns: columns, size: size, weight: "bold") }
            y += 3
        }
        drawHeader()
        for (number, row) in rows.enumerated() {
            if y + rowHeight > Self.height - Self.margin - 20 {
                newPage()
                paragraph(title + " " + continued, size: 11, weight: "bold")
                drawHeader()
            }
            y += rowHeight
            for (index, cell) in row.enumerated() {
                cellText(cell, column: index, columns: columns, size: size, weight: emphasised.contains(number) ? "bold" : nil)
            }
        }
    }

    /// A chart (a whole SVG document), the content's width, kept whole on a page under its `caption`.
    mutating func chart(_ svg: String, caption: String) {
        let height = Self.contentWidth * 0.42
        keep(height + 8 + 20 * Double(Self.wrapped(caption, size: 10).count))
        paragraph(caption, size: 10, weight: "bold")
        y += 8
        body += svg.replacingOccurrences(
            of: "<svg ",
            with: "<svg x=\"\(SVGText.number(Self.margin))\" y=\"\(SVGText.number(y))\" width=\"\(SVGText.number(Self.contentWidth))\" "
                + "height=\"\(SVGText.number(height))\" ",
            options: [.anchored]
        )
        y += height
    }

    /// The pages as SVG documents, each numbered at its foot with `numbered` (its number and the count).
    mutating func pages(numbered: (Int, Int) -> String) -> [String] {
        finished.append(body)
        body = ""
        let count = finished.count
        return finished.enumerated().map { index, body in
            var footer = ReportLayout(rightToLeft: rightToLeft, continued: continued)
            footer.y = Self.height - Self.margin + 12
            footer.write(numbered(index + 1, count), x: 0, size: 8, weight: nil)
            return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(Self.width))pt\" height=\"\(Int(Self.height))pt\" "
                + "viewBox=\"0 0 \(Int(Self.width)) \(Int(Self.height))\" font-family=\"DejaVu Sans, sans-serif\">"
                + "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>" + body + footer.body + "</svg>"
        }
    }

    private mutating func cellText(_ text: String, column: Int, columns: [Double], size: Double, weight: String?) {
        let start = columns.prefix(column).reduce(0, +) * Self.contentWidth
        let width = columns[column] * Self.contentWidth - 6
        write(Self.fitted(text, size: size, width: width), x: start, size: size, weight: weight)
    }

    /// A line at `x` points from the content's start edge (the right one in Arabic).
    private mutating func write(_ text: String, x: Double, size: Double, weight: String?) {
        let position = rightToLeft ? Self.width - Self.margin - x : Self.margin + x
        body +=
            "<text x=\"\(SVGText.number(position))\" y=\"\(SVGText.number(y))\" font-size=\"\(SVGText.number(size))\" "
            + "text-anchor=\"start\"\(rightToLeft ? " direction=\"rtl\"" : "")"
            + (weight.map { " font-weight=\"\($0)\"" } ?? "") + ">\(SVGText.escaped(text))</text>"
    }
}
