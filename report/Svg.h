#pragma once
// A small writer of SVG (and the HTML around it) for the report pages: escaping, number
// formatting and the few elements the pictures use. Every picture is a standalone <svg> with the
// SVG namespace, a <title> and a <desc>, so that it is well-formed XML on its own (tests run
// xmllint over each) and readable without the page.
#include <cstdint>
#include <string>
#include <string_view>

namespace ttlplan::report {

/// `text` with &, <, >, " and ' escaped for XML text and attribute values.
std::string escape(std::string_view text);

/// 1234567 -> "1,234,567".
std::string thousands(int64_t value);

/// Bytes in the unit that reads best: "512 B", "12.0 KiB", "1.33 MiB".
std::string bytesText(double bytes);

/// Nanoseconds as "850 ns", "12.3 us", "4.56 ms".
std::string timeText(double ns);

/// A colour of the sequential heat scale for t in [0, 1] (light yellow to dark red), readable in
/// print and for the common colour-vision deficiencies (a single-hue-ish ramp).
std::string heatColour(double t);

/// A colour per category index (8 distinct colours, repeated).
std::string categoryColour(int index);

/// The text colour ("#000" or "#fff") that reads on `background` ("#rrggbb").
std::string textColourOn(const std::string& background);

/// A <defs> with a hatch <pattern> of this id (free L1, idle cores): fill="url(#ID)".
std::string hatchPattern(const std::string& id);

/// An SVG picture under construction.
class Svg {
public:
  /// `cssClass` names the picture's job ("l1-map", "core-grid", ...); the tests find it by it.
  Svg(double width, double height, std::string cssClass, std::string_view title,
      std::string_view description);

  /// A rectangle; `tooltip` becomes its <title> (hover text), `cssClass` its class.
  void rect(double x, double y, double w, double h, const std::string& fill,
            const std::string& cssClass = "", std::string_view tooltip = "",
            const std::string& extra = "");
  /// Text anchored at (x, y); `anchor` is "start", "middle" or "end".
  void text(double x, double y, std::string_view text, const std::string& anchor = "start",
            const std::string& cssClass = "", double size = 11);
  void line(double x1, double y1, double x2, double y2, const std::string& stroke, double width = 1,
            const std::string& extra = "");
  void circle(double cx, double cy, double r, const std::string& fill,
              const std::string& cssClass = "", std::string_view tooltip = "",
              const std::string& extra = "");
  /// Raw SVG markup the caller built (already escaped).
  void raw(const std::string& markup);

  /// The finished <svg> element.
  std::string str() const;

private:
  /// Ends an open `<tag ...` of a shape: its class, extra attributes, and the hover title.
  void closeShape(const char* tag, const std::string& cssClass, std::string_view tooltip,
                  const std::string& extra);

  double width_, height_;
  std::string class_;
  std::string body_;
};

} // namespace ttlplan::report
