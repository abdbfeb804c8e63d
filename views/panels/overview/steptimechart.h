#pragma once

// StepTimeChart: one stacked bar per step, one series per time category (Qt Charts
// QStackedBarSeries). Hovering a segment shows the step's values; clicking a step emits
// stepClicked with its index.

#include <QChartView>
#include <QStringList>
#include <vector>

namespace tracedesk::views {

class StepTimeChart : public QChartView
{
    Q_OBJECT

public:
    explicit StepTimeChart(QWidget *parent = nullptr);

    // values[category][step] in milliseconds.
    void setSteps(const QString &title, const QStringList &stepLabels, const QStringList &categories,
                  const std::vector<std::vector<double>> &values);
    int stepCount() const { return int(m_labels.size()); }
    int categoryCount() const { return int(m_categories.size()); }
    QString hoverText(int step) const;

signals:
    void stepClicked(int step);

private:
    QStringList m_labels;
    QStringList m_categories;
    std::vector<std::vector<double>> m_values;
};

} // namespace tracedesk::views
