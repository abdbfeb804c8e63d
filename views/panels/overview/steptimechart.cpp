#include "views/panels/overview/steptimechart.h"

#include "views/common/niceaxis.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace tracedesk::views {

namespace {

constexpr int kMaxStepLabels = 30;
constexpr int kChartMinHeight = 240;
constexpr double kMargin = 8;
constexpr double kSwatch = 10;
constexpr double kMaxBarWidth = 96;   // a few steps still read as bars, not slabs

// Categorical colours in the order categories appear (those without a fixed colour).
constexpr QRgb kDefaultColours[] = {0xff4e79a7, 0xfff28e2b, 0xff59a14f, 0xffe15759, 0xff76b7b2,
                                    0xffedc948, 0xffb07aa1, 0xffff9da7, 0xff9c755f, 0xffbab0ac};

double legendItemWidth(const QFontMetrics &fm, const QString &text)
{
    return kSwatch + 4 + fm.horizontalAdvance(text) + 14;
}

} // namespace

StepTimeChart::StepTimeChart(QWidget *parent) : QWidget(parent)
{
    setMouseTracking(true);
    setMinimumHeight(kChartMinHeight);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    m_emptyText = tr("No steps in this profile, so there is no step-time chart.");
    setShrunk(true);
}

QSize StepTimeChart::sizeHint() const
{
    return {640, m_shrunk ? 2 * fontMetrics().lineSpacing() : 320};
}

void StepTimeChart::setShrunk(bool shrunk)
{
    m_shrunk = shrunk;
    if (shrunk) {
        setFixedHeight(2 * fontMetrics().lineSpacing());
    } else {
        setMinimumHeight(kChartMinHeight);
        setMaximumHeight(QWIDGETSIZE_MAX);
    }
    updateGeometry();
    update();
}

void StepTimeChart::setCategoryColour(const QString &category, QColor colour)
{
    m_fixedColours.insert(category, colour);
    update();
}

QString StepTimeChart::hoverText(int step) const
{
    if (step < 0 || step >= m_labels.size())
        return {};
    QString text = tr("Step %1").arg(m_labels[step]);
    double total = 0;
    for (size_t c = 0; c < m_values.size(); ++c) {
        const double v = m_values[c][size_t(step)];
        total += v;
        if (v > 0)
            text += QStringLiteral("\n%1: %2 ms").arg(m_categories[int(c)]).arg(v, 0, 'f', 3);
    }
    return text + tr("\nTotal: %1 ms").arg(total, 0, 'f', 3);
}

int StepTimeChart::barCount() const
{
    return (m_stepCount + m_perBar - 1) / m_perBar;
}

QStringList StepTimeChart::shownCategories() const
{
    QStringList out;
    for (const Shown &s : m_shown)
        out << m_categories[s.category];
    return out;
}

QColor StepTimeChart::colourOf(int shown) const
{
    if (shown < 0 || size_t(shown) >= m_shown.size())
        return {};
    const QString &name = m_categories[m_shown[size_t(shown)].category];
    if (const auto it = m_fixedColours.constFind(name); it != m_fixedColours.constEnd())
        return *it;
    return QColor::fromRgb(kDefaultColours[size_t(shown) % std::size(kDefaultColours)]);
}

double StepTimeChart::barValue(int shown, int bar) const
{
    if (shown < 0 || size_t(shown) >= m_shown.size() || bar < 0 || bar >= barCount())
        return 0;
    return m_shown[size_t(shown)].means[size_t(bar)];
}

QString StepTimeChart::barText(int bar) const
{
    if (m_perBar == 1)
        return hoverText(bar);
    if (bar < 0 || bar >= barCount())
        return {};
    const int first = bar * m_perBar;
    const int last = std::min(m_stepCount, first + m_perBar) - 1;
    QString text = tr("Steps %1 to %2 (%3 steps), mean per step")
                       .arg(m_barFirst[bar], m_barLast[bar])
                       .arg(last - first + 1);
    // Categories not shown have no time in any step.
    for (const Shown &shown : m_shown) {
        const double mean = shown.means[size_t(bar)];
        if (mean > 0)
            text += QStringLiteral("\n%1: %2 ms")
                        .arg(m_categories[shown.category])
                        .arg(mean, 0, 'f', 3);
    }
    return text + tr("\nTotal: %1 ms").arg(m_totals[size_t(bar)], 0, 'f', 3);
}

void StepTimeChart::clear()
{
    m_title.clear();
    m_stepCount = 0;
    m_labels.clear();
    m_barLabels.clear();
    m_barFirst.clear();
    m_barLast.clear();
    m_categories.clear();
    m_values.clear();
    m_shown.clear();
    m_totals.clear();
    m_perBar = 1;
    m_hover = -1;
    m_pending = true;
    setShrunk(true);
}

StepChartData prepareStepChart(const QString &title, QStringList stepLabels,
                               QStringList categories, std::vector<std::vector<double>> values)
{
    StepChartData d;
    d.labels = std::move(stepLabels);
    d.categories = std::move(categories);
    d.values = std::move(values);
    const int steps = int(d.labels.size());
    d.stepCount = steps;
    d.perBar = steps > StepTimeChart::kMaxBars
                   ? (steps + StepTimeChart::kMaxBars - 1) / StepTimeChart::kMaxBars
                   : 1;
    d.title = d.perBar == 1 ? title
                            : StepTimeChart::tr("%1 (mean of every %2 steps)")
                                  .arg(title)
                                  .arg(d.perBar);
    if (d.labels.isEmpty())
        return d;
    const int bars = (steps + d.perBar - 1) / d.perBar;
    for (int b = 0; b < bars; ++b) {
        const int first = b * d.perBar, last = std::min(steps, first + d.perBar) - 1;
        d.barLabels << (first == last ? d.labels[first]
                                      : QStringLiteral("%1–%2").arg(d.labels[first],
                                                                     d.labels[last]));
        if (d.perBar > 1) {
            d.barFirst << d.labels[first];
            d.barLast << d.labels[last];
        }
    }
    d.totals.assign(size_t(bars), 0.0);
    for (int c = 0; c < d.categories.size(); ++c) {
        const auto &column = d.values[size_t(c)];
        if (std::all_of(column.begin(), column.end(), [](double v) { return v <= 0; }))
            continue;   // empty categories only clutter the legend
        StepChartData::Shown shown{c, std::vector<double>(size_t(bars), 0.0)};
        for (int b = 0; b < bars; ++b) {
            const size_t first = size_t(b) * size_t(d.perBar);
            const size_t last = std::min(column.size(), first + size_t(d.perBar));
            double sum = 0;
            for (size_t s = first; s < last; ++s)
                sum += column[s];
            shown.means[size_t(b)] = last > first ? sum / double(last - first) : 0.0;
            d.totals[size_t(b)] += shown.means[size_t(b)];
        }
        d.shown.push_back(std::move(shown));
    }
    if (d.perBar > 1) {
        d.labels = QStringList();
        d.values = {};
    }
    return d;
}

void StepTimeChart::setSteps(const QString &title, const QStringList &stepLabels,
                             const QStringList &categories,
                             const std::vector<std::vector<double>> &values)
{
    setData(prepareStepChart(title, stepLabels, categories, values));
}

void StepTimeChart::setData(StepChartData data)
{
    m_pending = false;
    m_title = std::move(data.title);
    m_stepCount = data.stepCount;
    m_labels = std::move(data.labels);
    m_barLabels = std::move(data.barLabels);
    m_barFirst = std::move(data.barFirst);
    m_barLast = std::move(data.barLast);
    m_categories = std::move(data.categories);
    m_values = std::move(data.values);
    m_shown = std::move(data.shown);
    m_totals = std::move(data.totals);
    m_perBar = data.perBar;
    m_hover = -1;
    setShrunk(m_stepCount == 0);
}

StepTimeChart::Geometry StepTimeChart::geometry() const
{
    Geometry g;
    const QFontMetrics fm = fontMetrics();
    const double line = fm.height();
    const double maxTotal = m_totals.empty() ? 0.0
                                             : *std::max_element(m_totals.begin(), m_totals.end());
    const NiceScale scale = niceScale(0, maxTotal > 0 ? maxTotal : 1);
    g.yMax = scale.max;
    double labelWidth = 0;
    for (int t = 0; t < scale.tickCount; ++t) {
        labelWidth = std::max<double>(
            labelWidth,
            fm.horizontalAdvance(QString::number(scale.min + t * scale.step, 'f', scale.decimals)));
    }
    double x = 0;
    const double legendWidth = width() - 2 * kMargin;
    for (const Shown &s : m_shown) {
        const double w = legendItemWidth(fm, m_categories[s.category]);
        if (x > 0 && x + w > legendWidth) {
            ++g.legendRows;
            x = 0;
        }
        x += w;
    }
    // Above the plot the title; below it step labels, axis title and legend; left of it the
    // axis title and tick labels.
    const double top = kMargin + line + 8;
    const double bottom = line + 4 + line + 6 + g.legendRows * line + kMargin;
    const double left = kMargin + line + 6 + labelWidth + 6;
    g.plot = QRectF(left, top, std::max(1.0, width() - left - 2 * kMargin),
                    std::max(1.0, height() - top - bottom));
    return g;
}

QRectF StepTimeChart::barRect(int bar) const
{
    return barRectIn(geometry(), bar);
}

QRectF StepTimeChart::barRectIn(const Geometry &g, int bar) const
{
    const int bars = barCount();
    if (bar < 0 || bar >= bars || m_totals.empty())
        return {};
    const double slot = g.plot.width() / bars;
    const double w = std::clamp(slot * 0.8, 1.0, kMaxBarWidth);
    const double h = m_totals[size_t(bar)] / g.yMax * g.plot.height();
    return QRectF(g.plot.left() + slot * bar + (slot - w) / 2, g.plot.bottom() - h, w, h);
}

int StepTimeChart::barAt(QPointF pos) const
{
    const int bars = barCount();
    if (bars == 0 || m_shrunk)
        return -1;
    const Geometry g = geometry();
    if (!g.plot.contains(pos))
        return -1;
    // The whole column answers, not just the bar: short bars stay easy to hit.
    const int bar = int((pos.x() - g.plot.left()) / (g.plot.width() / bars));
    return bar >= 0 && bar < bars ? bar : -1;
}

void StepTimeChart::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    const QPalette pal = palette();
    if (m_shrunk) {
        if (m_stepCount > 0 || m_pending)
            return;
        p.setPen(pal.color(QPalette::PlaceholderText));
        p.drawText(rect().adjusted(6, 0, -6, 0), Qt::AlignLeft | Qt::AlignVCenter, m_emptyText);
        return;
    }
    p.fillRect(rect(), pal.color(QPalette::Base));
    const Geometry g = geometry();
    const QFontMetrics fm = fontMetrics();
    const double line = fm.height();
    const QColor text = pal.color(QPalette::Text);
    QColor grid = pal.color(QPalette::Mid);
    grid.setAlpha(90);

    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    p.setPen(text);
    p.drawText(QRectF(kMargin, kMargin, width() - 2 * kMargin, line), Qt::AlignCenter,
               QFontMetrics(bold).elidedText(m_title, Qt::ElideRight, int(width() - 2 * kMargin)));
    p.setFont(font());

    // Value axis: grid lines and labels on nice ticks.
    const NiceScale scale = niceScale(0, g.yMax);
    for (int t = 0; t < scale.tickCount; ++t) {
        const double v = scale.min + t * scale.step;
        const double y = std::round(g.plot.bottom() - v / g.yMax * g.plot.height()) + 0.5;
        p.setPen(grid);
        p.drawLine(QPointF(g.plot.left(), y), QPointF(g.plot.right(), y));
        p.setPen(text);
        p.drawText(QRectF(0, y - line / 2, g.plot.left() - 6, line),
                   Qt::AlignRight | Qt::AlignVCenter, QString::number(v, 'f', scale.decimals));
    }
    p.save();
    p.translate(kMargin, g.plot.center().y());
    p.rotate(-90);
    p.drawText(QRectF(-g.plot.height() / 2, 0, g.plot.height(), line), Qt::AlignCenter,
               tr("Milliseconds"));
    p.restore();

    // Bars, stacked in legend order from the bottom.
    const int bars = barCount();
    const double slot = g.plot.width() / bars;
    for (int b = 0; b < bars; ++b) {
        const QRectF outline = barRectIn(g, b);
        double y = g.plot.bottom();
        for (size_t s = 0; s < m_shown.size(); ++s) {
            const double h = m_shown[s].means[size_t(b)] / g.yMax * g.plot.height();
            QColor fill = colourOf(int(s));
            if (b == m_hover)
                fill = fill.lighter(115);
            p.fillRect(QRectF(outline.left(), y - h, outline.width(), h), fill);
            y -= h;
        }
        if (b == m_hover) {
            p.setPen(QPen(text, 1));
            p.drawRect(outline.adjusted(-0.5, -0.5, 0.5, 0.5));
        }
    }
    p.setPen(text);
    p.drawLine(g.plot.bottomLeft(), g.plot.bottomRight());

    // Step labels: every k-th, so that those drawn neither overlap nor exceed kMaxStepLabels.
    int widest = 0;
    for (const QString &label : m_barLabels)
        widest = std::max(widest, fm.horizontalAdvance(label));
    const int every = std::max({1, (bars + kMaxStepLabels - 1) / kMaxStepLabels,
                                int(std::ceil((widest + 8) / std::max(slot, 1.0)))});
    const double labelY = g.plot.bottom() + 4;
    for (int b = 0; b < bars; b += every) {
        const double centre = g.plot.left() + slot * (b + 0.5);
        const double room = slot * every;
        p.drawText(QRectF(centre - room / 2, labelY, room, line), Qt::AlignCenter,
                   fm.elidedText(m_barLabels[b], Qt::ElideMiddle, int(room)));
    }
    p.drawText(QRectF(g.plot.left(), labelY + line + 2, g.plot.width(), line), Qt::AlignCenter,
               tr("Step"));

    // Legend, centred rows below the axis title.
    std::vector<std::vector<size_t>> rows(1);
    std::vector<double> rowWidth(1, 0.0);
    for (size_t s = 0; s < m_shown.size(); ++s) {
        const double w = legendItemWidth(fm, m_categories[m_shown[s].category]);
        if (rowWidth.back() > 0 && rowWidth.back() + w > width() - 2 * kMargin) {
            rows.emplace_back();
            rowWidth.push_back(0);
        }
        rows.back().push_back(s);
        rowWidth.back() += w;
    }
    double y = labelY + 2 * line + 8;
    for (size_t r = 0; r < rows.size(); ++r) {
        double x = (width() - rowWidth[r]) / 2;
        for (size_t s : rows[r]) {
            const QString &name = m_categories[m_shown[s].category];
            p.fillRect(QRectF(x, y + (line - kSwatch) / 2, kSwatch, kSwatch), colourOf(int(s)));
            p.drawText(QRectF(x + kSwatch + 4, y, fm.horizontalAdvance(name) + 2, line),
                       Qt::AlignLeft | Qt::AlignVCenter, name);
            x += legendItemWidth(fm, name);
        }
        y += line;
    }
}

void StepTimeChart::mouseMoveEvent(QMouseEvent *event)
{
    const int bar = barAt(event->position());
    if (bar != m_hover) {
        m_hover = bar;
        update();
    }
    QWidget::mouseMoveEvent(event);
}

void StepTimeChart::mousePressEvent(QMouseEvent *event)
{
    const int bar = event->button() == Qt::LeftButton ? barAt(event->position()) : -1;
    if (bar < 0) {
        QWidget::mousePressEvent(event);
        return;
    }
    emit stepClicked(bar * m_perBar);
}

void StepTimeChart::leaveEvent(QEvent *)
{
    if (m_hover >= 0) {
        m_hover = -1;
        update();
    }
}

bool StepTimeChart::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        const auto *help = static_cast<QHelpEvent *>(event);
        const int bar = barAt(help->pos());
        if (bar < 0)
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), barText(bar), this);
        return true;
    }
    return QWidget::event(event);
}

} // namespace tracedesk::views
