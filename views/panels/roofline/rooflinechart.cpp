#include "views/panels/roofline/rooflinechart.h"

#include "views/common/chartpalette.h"

#include <QChart>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace tracedesk::views {

using core::analysis::Roofline;
using core::analysis::RooflineModel;
using core::analysis::RooflinePoint;

namespace {

// Fixed colours: a memory's line and a kind of point look the same in every profile.
const QColor kLineColours[] = {QColor(0x1f, 0x77, 0xb4), QColor(0x2c, 0xa0, 0x2c),
                               QColor(0x94, 0x67, 0xbd), QColor(0x8c, 0x56, 0x4b),
                               QColor(0x17, 0xbe, 0xcf), QColor(0x7f, 0x7f, 0x7f)};
const QColor kTotalColour(0xd6, 0x27, 0x28);
const QColor kStepColour(0xff, 0x7f, 0x0e);
const QColor kOpColour(0x44, 0x44, 0x44);

bool placeable(const RooflinePoint &p)
{
    return p.operationalIntensity && *p.operationalIntensity > 0 && p.gflopsPerSecond
           && *p.gflopsPerSecond > 0;
}

QString number(double v)
{
    return v >= 100 ? QString::number(v, 'f', 0) : QString::number(v, 'g', 3);
}

} // namespace

RooflineChart::RooflineChart(QWidget *parent) : QChartView(parent)
{
    setRenderHint(QPainter::Antialiasing);
    setMinimumHeight(260);
    followPalette(this);
    clear();
}

void RooflineChart::clear()
{
    show(nullptr, {});
}

void RooflineChart::show(std::shared_ptr<const RooflineModel> shown,
                         const std::vector<uint32_t> &rows)
{
    static const RooflineModel kEmpty;
    m_model = std::move(shown);
    const RooflineModel &model = m_model ? *m_model : kEmpty;
    m_drawn.clear();
    m_values.clear();
    m_rooflines = 0;
    auto *chart = new QChart;
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart->setMargins(QMargins(4, 4, 4, 4));

    // Order the drawn points as the series hold them: Total, steps, ops.
    std::vector<uint32_t> order = rows;
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        return model.points[a].kind < model.points[b].kind;
    });
    double xMin = 0, xMax = 0, yMin = 0, yMax = 0;
    auto widen = [&](double x, double y) {
        xMin = xMin == 0 ? x : std::min(xMin, x);
        xMax = std::max(xMax, x);
        yMin = yMin == 0 ? y : std::min(yMin, y);
        yMax = std::max(yMax, y);
    };
    for (uint32_t i : order) {
        const RooflinePoint &p = model.points[i];
        if (!placeable(p))
            continue;
        m_drawn.push_back(i);
        m_values.emplace_back(*p.operationalIntensity, *p.gflopsPerSecond);
        widen(m_values.back().x(), m_values.back().y());
    }
    const double peak = model.peakGigaFlopsPerSecond;
    for (const Roofline &r : model.rooflines) {
        if (peak > 0 && r.ridgePoint > 0)
            widen(r.ridgePoint, peak);
    }
    if (xMax <= 0) {   // nothing to place: an empty frame with sensible decades
        xMin = 0.1, xMax = 1000, yMin = 1, yMax = 1e6;
    }
    // Whole decades around what is drawn, so every point and ridge sits inside the frame.
    xMin = std::pow(10.0, std::floor(std::log10(xMin)) - 1);
    xMax = std::pow(10.0, std::ceil(std::log10(xMax)) + 1);
    yMin = std::pow(10.0, std::floor(std::log10(yMin)) - 1);
    yMax = std::pow(10.0, std::ceil(std::log10(yMax)) + 0.3);

    auto *xAxis = new QLogValueAxis;
    xAxis->setBase(10);
    xAxis->setLabelFormat(QStringLiteral("%g"));
    xAxis->setTitleText(tr("Operational intensity (FLOP/byte)"));
    xAxis->setRange(xMin, xMax);
    auto *yAxis = new QLogValueAxis;
    yAxis->setBase(10);
    yAxis->setLabelFormat(QStringLiteral("%g"));
    yAxis->setTitleText(tr("GFLOP/s"));
    yAxis->setRange(yMin, yMax);
    chart->addAxis(xAxis, Qt::AlignBottom);
    chart->addAxis(yAxis, Qt::AlignLeft);
    auto attach = [&](QAbstractSeries *s) {
        chart->addSeries(s);
        s->attachAxis(xAxis);
        s->attachAxis(yAxis);
    };

    auto *ridges = new QScatterSeries;
    ridges->setName(tr("Ridge points"));
    ridges->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
    ridges->setMarkerSize(7);
    ridges->setColor(Qt::black);
    int colour = 0;
    for (const Roofline &r : model.rooflines) {
        if (peak <= 0 || r.peakGigaBytesPerSecond <= 0)
            continue;
        auto *line = new QLineSeries;
        // The legend names the memory; its bandwidth is in the panel's status line.
        line->setName(QString::fromStdString(r.memory));
        const double ridge = peak / r.peakGigaBytesPerSecond;
        line->append(xMin, r.peakGigaBytesPerSecond * xMin);
        line->append(ridge, peak);
        line->append(xMax, peak);
        QPen pen(kLineColours[colour++ % std::size(kLineColours)]);
        pen.setWidthF(2);
        line->setPen(pen);
        attach(line);
        ridges->append(ridge, peak);
        ++m_rooflines;
    }
    if (ridges->count() > 0)
        attach(ridges);
    else
        delete ridges;

    auto series = [&](RooflinePoint::Kind kind, const QString &name, const QColor &c,
                      QScatterSeries::MarkerShape shape, double size) {
        auto *s = new QScatterSeries;
        s->setName(name);
        s->setProperty("pointKind", int(kind));
        s->setColor(c);
        s->setBorderColor(c.darker(140));
        s->setMarkerShape(shape);
        s->setMarkerSize(size);
        for (size_t i = 0; i < m_drawn.size(); ++i) {
            if (drawn(i).kind == kind)
                s->append(m_values[i]);
        }
        if (s->count() == 0) {
            delete s;
            return;
        }
        attach(s);
        connect(s, &QScatterSeries::hovered, this, [this, s](const QPointF &v, bool state) {
            const int i = drawnIndex(s, v);
            if (state && i >= 0)
                QToolTip::showText(QCursor::pos(), pointText(i), this);
            else
                QToolTip::hideText();
        });
        connect(s, &QScatterSeries::clicked, this, [this, s](const QPointF &v) {
            const int i = drawnIndex(s, v);
            if (i >= 0 && drawn(size_t(i)).kind == RooflinePoint::Kind::Op)
                emit opClicked(QString::fromStdString(drawn(size_t(i)).name));
        });
    };
    series(RooflinePoint::Kind::Op, tr("Ops"), kOpColour, QScatterSeries::MarkerShapeCircle, 8);
    series(RooflinePoint::Kind::Step, tr("Steps"), kStepColour,
           QScatterSeries::MarkerShapeTriangle, 11);
    series(RooflinePoint::Kind::Total, tr("Whole profile"), kTotalColour,
           QScatterSeries::MarkerShapeStar, 16);

    QChart *old = this->chart();
    setChart(chart);
    applyChartPalette(this);
    delete old;
}

int RooflineChart::pointCount() const
{
    return int(m_drawn.size());
}

int RooflineChart::drawnIndex(const QScatterSeries *series, const QPointF &value) const
{
    // A series holds the points of one kind; the value picks the nearest of them.
    const int kind = series->property("pointKind").toInt();
    int best = -1;
    double bestDistance = 0;
    for (size_t i = 0; i < m_drawn.size(); ++i) {
        if (int(drawn(i).kind) != kind)
            continue;
        const double dx = std::log10(m_values[i].x()) - std::log10(value.x());
        const double dy = std::log10(m_values[i].y()) - std::log10(value.y());
        const double d = dx * dx + dy * dy;
        if (best < 0 || d < bestDistance) {
            best = int(i);
            bestDistance = d;
        }
    }
    return best;
}

QString RooflineChart::pointText(int index) const
{
    if (index < 0 || index >= int(m_drawn.size()))
        return {};
    const RooflinePoint &p = drawn(size_t(index));
    QString text = QStringLiteral("<b>%1</b>").arg(QString::fromStdString(p.name).toHtmlEscaped());
    if (p.kind == RooflinePoint::Kind::Op)
        text += QStringLiteral(" (%1)").arg(QString::fromStdString(p.category).toHtmlEscaped());
    text += tr("<br>%1 GFLOP/s at %2 FLOP/byte")
                .arg(number(*p.gflopsPerSecond))
                .arg(number(*p.operationalIntensity));
    if (p.hbmBwGibPerSecond)
        text += tr("<br>HBM %1 GiB/s").arg(number(*p.hbmBwGibPerSecond));
    text += tr("<br>self time %1 us (%2 %), %3 occurrences")
                .arg(QString::number(p.totalSelfTimeUs, 'f', 1))
                .arg(QString::number(p.selfTimePercent, 'f', 1))
                .arg(p.occurrences);
    text += tr("<br>bound by %1").arg(QString::fromStdString(p.boundBy));
    return text;
}

QPoint RooflineChart::pointPosition(int index) const
{
    if (index < 0 || index >= int(m_values.size()))
        return {};
    const QPointF scene = chart()->mapToPosition(m_values[size_t(index)]);
    return mapFromScene(chart()->mapToScene(scene));
}

} // namespace tracedesk::views
