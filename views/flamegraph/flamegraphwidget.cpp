#include "views/flamegraph/flamegraphwidget.h"

#include "views/common/qtconvert.h"
#include "views/timeline/timelinegeometry.h"
#include "views/timeline/timelinetheme.h"

#include "core/query/search.h"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace tracedesk::views {

namespace {

QColor mix(QColor a, QColor b, double t)
{
    t = std::clamp(t, 0.0, 1.0);
    return QColor::fromRgbF(float(a.redF() + (b.redF() - a.redF()) * t),
                            float(a.greenF() + (b.greenF() - a.greenF()) * t),
                            float(a.blueF() + (b.blueF() - a.blueF()) * t));
}

constexpr QRgb kGrown = 0xffd62728;  // B slower than A
constexpr QRgb kShrunk = 0xff1f77b4; // B faster than A
constexpr QRgb kUnchanged = 0xffe9ebef;
constexpr QRgb kMatch = 0xffdb2777;

QString percentText(core::TimePs part, core::TimePs whole)
{
    return whole > 0 ? QString::number(100.0 * double(part) / double(whole), 'f', 1) + '%'
                     : QStringLiteral("–");
}

bool isAscii(std::string_view text)
{
    return std::all_of(text.begin(), text.end(),
                       [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

} // namespace

FlameGraphWidget::FlameGraphWidget(QWidget *parent)
    : QWidget(parent)
{
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
}

void FlameGraphWidget::setTree(std::shared_ptr<const FlameTree> tree)
{
    m_tree = std::move(tree);
    m_focus = 0;
    m_history.clear();
    setSearch(m_search);
    updateGeometry();
    emit focusChanged(m_focus);
    update();
}

void FlameGraphWidget::setFocusNode(uint32_t node)
{
    m_focus = node;
    emit focusChanged(node);
    update();
}

void FlameGraphWidget::zoomTo(uint32_t node)
{
    if (!m_tree || node >= m_tree->nodes.size() || node == m_focus)
        return;
    m_history.push_back(m_focus);
    setFocusNode(node);
}

void FlameGraphWidget::back()
{
    if (m_history.empty())
        return;
    const uint32_t node = m_history.back();
    m_history.pop_back();
    setFocusNode(node);
}

void FlameGraphWidget::resetZoom()
{
    m_history.clear();
    setFocusNode(0);
}

void FlameGraphWidget::setSearch(const QString &text)
{
    m_search = text;
    m_match.assign(m_tree ? m_tree->nodes.size() : 0, 0);
    m_matchCount = 0;
    m_matchedTime = 0;
    if (m_tree && !text.isEmpty()) {
        // ASCII text is matched in place, as the timeline's search matches names: a keystroke
        // over 640k frame names would otherwise make each a QString (80 ms). Qt's Unicode
        // case rule stays for anything else.
        const std::string needle = text.toStdString();
        const bool asciiNeedle = isAscii(needle);
        std::vector<uint8_t> nameMatches(m_tree->nameCount(), 0);
        for (uint32_t i = 1; i < nameMatches.size(); ++i) {
            const std::string &name = (*m_tree->names)[i];
            nameMatches[i] = asciiNeedle && isAscii(name)
                                 ? core::containsIgnoringCase(name, needle)
                                 : m_tree->nameText(i).contains(text, Qt::CaseInsensitive);
        }
        // Nodes come after their parents, so one forward pass knows whether an ancestor matched.
        std::vector<uint8_t> under(m_tree->nodes.size(), 0);
        for (uint32_t n = 1; n < m_tree->nodes.size(); ++n) {
            const FlameTree::Node &node = m_tree->nodes[n];
            const bool parentCovered = under[node.parent] != 0;
            if (nameMatches[node.name]) {
                m_match[n] = 1;
                ++m_matchCount;
                if (!parentCovered)
                    m_matchedTime += node.wall;
            }
            under[n] = parentCovered || m_match[n];
        }
    }
    emit searchChanged(m_matchCount);
    update();
}

std::vector<FlameRect> FlameGraphWidget::frameRects() const
{
    if (!m_tree)
        return {};
    return layoutFlame(*m_tree, m_focus, double(width()));
}

QRectF FlameGraphWidget::rectOf(const FlameRect &r) const
{
    return QRectF(r.x, double(r.row) * kRowHeight, r.w, kRowHeight);
}

int FlameGraphWidget::nodeAt(QPointF pos) const
{
    for (const FlameRect &r : frameRects()) {
        if (rectOf(r).contains(pos))
            return int(r.node);
    }
    return -1;
}

QString FlameGraphWidget::toolTipFor(uint32_t node) const
{
    if (!m_tree || node >= m_tree->nodes.size())
        return {};
    const FlameTree::Node &n = m_tree->nodes[node];
    const core::TimePs total = m_tree->nodes.front().wall;
    QString text = QStringLiteral("<b>%1</b><br>").arg(m_tree->nameOf(node).toHtmlEscaped());
    if (m_tree->differential) {
        const auto [a, b] = m_tree->sidesOf(node);
        const core::TimePs delta = b - a;
        text += tr("A: %1<br>B: %2<br>Change: %3%4 (%5)")
                    .arg(durationText(a), durationText(b), delta > 0 ? "+" : "",
                         durationText(delta),
                         a > 0 ? (delta > 0 ? "+" : "") + percentText(delta, a) : tr("new"));
        return text;
    }
    if (m_tree->inverted) {
        text += tr("Self time: %1 (%2 of all)<br>Slices: %3")
                    .arg(durationText(n.wall), percentText(n.wall, total), countText(n.count));
        return text;
    }
    text += tr("Total: %1 (%2 of all)<br>Self: %3<br>Slices: %4")
                .arg(durationText(n.wall), percentText(n.wall, total), durationText(n.self),
                     countText(n.count));
    return text;
}

QSize FlameGraphWidget::sizeHint() const
{
    return {800, minimumSizeHint().height()};
}

QSize FlameGraphWidget::minimumSizeHint() const
{
    const int rows = m_tree ? int(m_tree->maxDepth) + 1 : 4;
    return {200, rows * kRowHeight + 4};
}

QColor FlameGraphWidget::fillFor(uint32_t node, bool ancestor) const
{
    const QColor background = QColor::fromRgb(TimelineTheme::forPalette(palette()).background);
    QColor c;
    if (m_tree->differential) {
        const auto [a, b] = m_tree->sidesOf(node);
        const core::TimePs delta = b - a;
        const core::TimePs base = std::max(a, b);
        const double t = base > 0 ? double(std::llabs(delta)) / double(base) : 0.0;
        c = delta == 0 ? QColor::fromRgb(kUnchanged)
                       : mix(QColor::fromRgb(kUnchanged),
                             QColor::fromRgb(delta > 0 ? kGrown : kShrunk), 0.2 + 0.8 * t);
    } else {
        c = node == 0 ? QColor::fromRgb(kFoldedColour)
                      : QColor::fromRgb(colourForName(m_tree->nameOf(node).toStdString()));
    }
    if (!m_search.isEmpty())
        c = isMatch(node) ? QColor::fromRgb(kMatch) : mix(c, background, 0.75);
    if (ancestor)
        c = mix(c, background, 0.45);
    return c;
}

void FlameGraphWidget::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    const TimelineTheme theme = TimelineTheme::forPalette(palette());
    p.fillRect(rect(), QColor::fromRgb(theme.background));
    if (!m_tree || m_tree->empty()) {
        p.setPen(QColor::fromRgb(theme.text));
        p.drawText(rect(), Qt::AlignCenter, tr("No frames"));
        return;
    }
    const QFontMetrics metrics(font());
    for (const FlameRect &r : frameRects()) {
        const QRectF box = rectOf(r).adjusted(0, 0, -1, -1);
        if (box.width() <= 0)
            continue;
        const QColor fill = fillFor(r.node, r.ancestor);
        p.fillRect(box, fill);
        if (box.width() < 24)
            continue;
        const QRectF textBox = box.adjusted(4, 0, -3, 0);
        const QString label =
            metrics.elidedText(m_tree->nameOf(r.node), Qt::ElideRight, int(textBox.width()));
        if (label.isEmpty() || label == QStringLiteral("…"))
            continue;
        p.setPen(fill.lightness() < 110 ? QColor(Qt::white) : QColor(0x20, 0x24, 0x2b));
        p.drawText(textBox, Qt::AlignVCenter | Qt::AlignLeft, label);
    }
}

bool FlameGraphWidget::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        auto *help = static_cast<QHelpEvent *>(event);
        const int node = nodeAt(help->pos());
        if (node < 0)
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), toolTipFor(uint32_t(node)), this);
        return true;
    }
    return QWidget::event(event);
}

void FlameGraphWidget::mousePressEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton) {
        QWidget::mousePressEvent(event);
        return;
    }
    setFocus(Qt::MouseFocusReason);
    const int node = nodeAt(event->position());
    if (node < 0)
        return;
    zoomTo(uint32_t(node));
    emit frameClicked(quint32(node));
}

void FlameGraphWidget::keyPressEvent(QKeyEvent *event)
{
    if ((event->key() == Qt::Key_Escape || event->key() == Qt::Key_Backspace) &&
        !m_history.empty()) {
        back();
        event->accept();
        return;
    }
    QWidget::keyPressEvent(event);
}

} // namespace tracedesk::views
