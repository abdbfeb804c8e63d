#pragma once

// PieChartView: a titled Qt Charts pie of labelled values with a legend beside it (label,
// percentage, slice colour); the largest slices are shown and the rest folded into "Other".

#include <QWidget>

#include <utility>
#include <vector>

class QChartView;
class QLabel;
class QPieSeries;

namespace tracedesk::views {

class PieChartView : public QWidget
{
    Q_OBJECT

public:
    explicit PieChartView(const QString &title, QWidget *parent = nullptr);

    // Values <= 0 are skipped; at most `maxSlices` slices plus "Other".
    void setValues(std::vector<std::pair<QString, double>> values, int maxSlices = 8);
    int sliceCount() const;
    QString title() const;
    QString legendText() const;

private:
    QChartView *m_view = nullptr;
    QPieSeries *m_series = nullptr;
    QLabel *m_legend = nullptr;
};

} // namespace tracedesk::views
