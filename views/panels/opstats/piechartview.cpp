#include "views/panels/opstats/piechartview.h"

#include "views/common/chartpalette.h"

#include <QChart>
#include <QChartView>
#include <QHBoxLayout>
#include <QLabel>
#include <QPieSeries>

#include <algorithm>

namespace tracedesk::views {

PieChartView::PieChartView(const QString &title, QWidget *parent) : QWidget(parent)
{
    auto *chart = new QChart;
    chart->setTitle(title);
    chart->setMargins(QMargins(2, 2, 2, 2));
    chart->legend()->hide();   // the label beside the pie has room for long op names
    m_series = new QPieSeries(chart);
    m_series->setPieSize(0.9);
    chart->addSeries(m_series);
    m_view = new QChartView(chart, this);
    m_view->setRenderHint(QPainter::Antialiasing);
    m_view->setMinimumSize(200, 180);
    followPalette(m_view);
    m_legend = new QLabel(this);
    m_legend->setTextFormat(Qt::RichText);
    m_legend->setAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    m_legend->setMinimumWidth(220);
    m_legend->setWordWrap(true);
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_view, 1);
    layout->addWidget(m_legend, 1);
}

void PieChartView::setValues(std::vector<std::pair<QString, double>> values, int maxSlices)
{
    m_series->clear();
    std::erase_if(values, [](const auto &v) { return v.second <= 0; });
    std::stable_sort(values.begin(), values.end(),
                     [](const auto &a, const auto &b) { return a.second > b.second; });
    double total = 0, other = 0;
    for (const auto &v : values)
        total += v.second;
    // Fixed colours, so the legend can show them before the chart applies its theme.
    static const QColor kPalette[] = {QColor(0x1f77b4), QColor(0xff7f0e), QColor(0x2ca02c),
                                      QColor(0xd62728), QColor(0x9467bd), QColor(0x8c564b),
                                      QColor(0xe377c2), QColor(0x17becf), QColor(0xbcbd22)};
    QString legend;
    auto add = [&](const QString &label, double value, const QColor &color) {
        QPieSlice *slice = m_series->append(label, value);
        slice->setColor(color);
        slice->setBorderColor(Qt::white);
        QString shown = label;
        if (shown.size() > 48)
            shown = QStringLiteral("...") + shown.right(45);
        legend += QStringLiteral("<span style='color:%1'>&#9632;</span> %2 <b>%3%</b><br>")
                      .arg(color.name(), shown.toHtmlEscaped())
                      .arg(100.0 * value / total, 0, 'f', 1);
    };
    for (size_t i = 0; i < values.size(); ++i) {
        if (int(i) >= maxSlices)
            other += values[i].second;
        else
            add(values[i].first, values[i].second, kPalette[i % std::size(kPalette)]);
    }
    if (other > 0)
        add(tr("Other"), other, QColor(0xaaaaaa));
    m_legend->setText(values.empty() ? tr("No data") : legend);
    applyChartPalette(m_view);
}

int PieChartView::sliceCount() const
{
    return m_series->count();
}

QString PieChartView::title() const
{
    return m_view->chart()->title();
}

QString PieChartView::legendText() const
{
    return m_legend->text();
}

} // namespace tracedesk::views
