/// Text and attribute values made safe to put in an SVG document: every character XML gives meaning to is
/// escaped, and characters XML 1.0 does not allow are dropped (a member's name is data, never markup).
public enum SVGText {
    /// `text` with XML's special characters escaped and characters XML forbids dropped.
    public static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
            case _ where scalar.value < 0x20 || (0xFFFE...0xFFFF).contains(scalar.value): continue
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// A coordinate with at most one decimal.
    public static func number(_ value: Double) -> String {
        let tenths = (value * 10).rounded()
        return tenths.truncatingRemainder(dividingBy: 10) == 0 ? String(Int64(tenths / 10)) : String(tenths / 10)
    }
}

/// An SVG document written element by element.
struct SVGDocument {
    private(set) var body = ""
    let width: Double
    let height: Double
    let label: String

    init(width: Double, height: Double, label: String) {
        self.width = width
        self.height = height
        self.label = label
    }

    mutating func rect(x: Double, y: Double, width: Double, height: Double, fill: String, title: String? = nil, className: String? = nil) {
        let attributes =
            "x=\"\(SVGText.number(x))\" y=\"\(SVGText.number(y))\" width=\"\(SVGText.number(max(width, 0)))\" height=\"\(SVGText.number(max(height, 0)))\" fill=\"\(fill)\""
            + (className.map { " class=\"\($0)\"" } ?? "")
        if let title {
            body += "<rect \(attributes)><title>\(SVGText.escaped(title))</title></rect>"
        } else {
            body += "<rect \(attributes)/>"
        }
    }

    mutating func line(x1: Double, y1: Double, x2: Double, y2: Double, stroke: String, width: Double = 1, dashed: Bool = false) {
        body +=
            "<line x1=\"\(SVGText.number(x1))\" y1=\"\(SVGText.number(y1))\" x2=\"\(SVGText.number(x2))\" y2=\"\(SVGText.number(y2))\" "
            + "stroke=\"\(stroke)\" stroke-width=\"\(SVGText.number(width))\"\(dashed ? " stroke-dasharray=\"4 3\"" : "")/>"
    }

    /// A line through `points`, unfilled.
    mutating func polyline(_ points: [(x: Double, y: Double)], stroke: String, width: Double = 2, title: String? = nil) {
        let attributes =
            "points=\"\(points.map { "\(SVGText.number($0.x)),\(SVGText.number($0.y))" }.joined(separator: " "))\" fill=\"none\" "
            + "stroke=\"\(stroke)\" stroke-width=\"\(SVGText.number(width))\""
        body += title.map { "<polyline \(attributes)><title>\(SVGText.escaped($0))</title></polyline>" } ?? "<polyline \(attributes)/>"
    }

    mutating func circle(cx: Double, cy: Double, r: Double, fill: String, title: String? = nil) {
        let attributes = "cx=\"\(SVGText.number(cx))\" cy=\"\(SVGText.number(cy))\" r=\"\(SVGText.number(r))\" fill=\"\(fill)\""
        body += title.map { "<circle \(attributes)><title>\(SVGText.escaped($0))</title></circle>" } ?? "<circle \(attributes)/>"
    }

    /// Text at (x, y); `anchor` start, middle or end; bidirectional text is laid out by the reader. A text that
    /// would run past either edge (a month's name at the last mark) is moved in until it fits.
    mutating func text(
        _ text: String,
        x: Double,
        y: Double,
        anchor: String = "start",
        size: Double = 12,
        weight: String? = nil,
        fill: String = "#333"
    ) {
        let extent = Self.widestExtent(of: text, size: size)
        let before = anchor == "start" ? 0 : anchor == "middle" ? extent / 2 : extent
        let x = min(max(x, before + Self.margin), width - (extent - before) - Self.margin)
        body +=
            "<text x=\"\(SVGText.number(x))\" y=\"\(SVGText.number(y))\" text-anchor=\"\(anchor)\" font-size=\"\(SVGText.number(size))\" fill=\"\(fill)\""
            + (weight.map { " font-weight=\"\($0)\"" } ?? "") + ">\(SVGText.escaped(text))</text>"
    }

    /// Room kept between a text and the document's edges.
    static let margin = 2.0

    /// The most room `text` can take at font size `size`: each character as wide as the widest of the fonts'
    /// letters and digits for their script (0.64 em; DejaVu Sans's digits are 0.636 em).
    static func widestExtent(of text: String, size: Double) -> Double {
        Double(text.count) * size * 0.64
    }

    /// The whole document: scalable (a viewBox, no fixed size), labelled for screen readers.
    var document: String {
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(SVGText.number(width)) \(SVGText.number(height))\" "
            + "role=\"img\" aria-label=\"\(SVGText.escaped(label))\" font-family=\"DejaVu Sans, Noto Sans, Noto Sans Arabic, sans-serif\">"
            + "<title>\(SVGText.escaped(label))</title>" + body + "</svg>"
    }
}
