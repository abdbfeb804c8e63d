#include "views/panels/pytorch/pytorchmemoryview.h"

#include "views/common/chartpalette.h"
#include "views/common/niceaxis.h"

#include "views/panels/common/rowtable.h"
#include "views/panels/opstats/tablecsv.h"
#include "views/panels/pytorch/headerwidths.h"
#include "views/panels/pytorch/pytorchmemoryeventmodel.h"

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLegend>
#include <QLineEdit>
#include <QLineSeries>
#include <QPushButton>
#include <QScatterSeries>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableView>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace tracedesk::views {

using namespace core::analysis;
using namespace core::analysis::pytorch;

namespace {

constexpr double kMb = 1024.0 * 1024.0;
constexpr int kChartBuckets = 2000;

QString mbText(int64_t bytes)
{
    return QString::number(double(bytes) / kMb, 'f', 2) + QStringLiteral(" MB");
}

} // namespace

QList<QPointF> PyTorchMemoryView::stepPoints(const std::vector<MemoryPoint> &curve, bool reserved,
                                             int buckets, core::TimePs origin)
{
    QList<QPointF> out;
    if (curve.empty())
        return out;
    const auto value = [&](size_t i) {
        return double(reserved ? curve[i].reserved : curve[i].allocated) / kMb;
    };
    // A step line: the value holds until the next record, then jumps.
    const auto push = [&](size_t i) {
        const QPointF p(double(curve[i].time - origin) / 1e9, value(i));
        if (!out.isEmpty() && out.last().y() != p.y() && out.last().x() != p.x())
            out.append(QPointF(p.x(), out.last().y()));
        out.append(p);
    };
    const size_t n = curve.size();
    if (buckets <= 0 || n <= size_t(buckets) * 4) {
        for (size_t i = 0; i < n; ++i)
            push(i);
        return out;
    }
    const core::TimePs t0 = curve.front().time;
    const double width = double(curve.back().time - t0) / buckets;
    size_t i = 0;
    while (i < n) {
        // One bucket: its first, lowest, highest and last records, in time order.
        const double bucket = width > 0 ? std::floor(double(curve[i].time - t0) / width) : 0;
        size_t end = i + 1, low = i, high = i;
        while (end < n &&
               (width <= 0 || std::floor(double(curve[end].time - t0) / width) == bucket)) {
            if (value(end) < value(low))
                low = end;
            if (value(end) > value(high))
                high = end;
            ++end;
        }
        size_t keep[] = {i, low, high, end - 1};
        std::sort(std::begin(keep), std::end(keep));
        for (size_t k = 0; k < 4; ++k) {
            if (k == 0 || keep[k] != keep[k - 1])
                push(keep[k]);
        }
        i = end;
    }
    return out;
}

PyTorchMemoryView::PyTorchMemoryView(QWidget *parent) : QWidget(parent)
{
    m_device = new QComboBox(this);
    m_device->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_status = new QLabel(tr("No profile"), this);
    m_peaks = new QLabel(this);
    m_peaks->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_chart = new QChart;
    m_chart->legend()->setAlignment(Qt::AlignBottom);
    m_chart->setMargins(QMargins(4, 4, 4, 4));
    m_chartView = new QChartView(m_chart, this);
    followPalette(m_chartView);
    m_chartView->setRenderHint(QPainter::Antialiasing);
    m_chartView->setMinimumHeight(260);

    m_filter = new QLineEdit(this);
    m_filter->setPlaceholderText(tr("Filter by operator"));
    m_filter->setClearButtonEnabled(true);
    m_export = new QPushButton(tr("Export CSV..."), this);
    m_model = new PyTorchMemoryEventModel(this);
    m_proxy = makeTableProxy(m_model, PyTorchMemoryEventModel::kSortRole,
                             PyTorchMemoryEventModel::Operator, this);
    m_table = makeRowTable(m_proxy, this);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    fitColumnsToHeaders(m_table, 110);
    m_table->setColumnWidth(PyTorchMemoryEventModel::Operator, 380);

    auto *tableBox = new QWidget(this);
    auto *tableBar = new QHBoxLayout;
    tableBar->addWidget(new QLabel(tr("Memory events"), tableBox), 1);
    tableBar->addWidget(m_filter, 1);
    tableBar->addWidget(m_export);
    auto *tableLayout = new QVBoxLayout(tableBox);
    tableLayout->setContentsMargins(0, 0, 0, 0);
    tableLayout->addLayout(tableBar);
    tableLayout->addWidget(m_table, 1);

    auto *content = new QWidget(this);
    auto *contentLayout = new QVBoxLayout(content);
    contentLayout->setContentsMargins(0, 0, 0, 0);
    contentLayout->addWidget(m_peaks);
    auto *split = new QSplitter(Qt::Vertical, content);
    split->addWidget(m_chartView);
    split->addWidget(tableBox);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setChildrenCollapsible(false);
    contentLayout->addWidget(split, 1);

    m_empty = new QLabel(tr("This PyTorch profile has no memory records; profile with "
                            "profile_memory=True to see the memory curves."), this);
    m_empty->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_empty->setWordWrap(true);
    m_stack = new QStackedWidget(this);
    m_stack->addWidget(content);
    m_stack->addWidget(m_empty);

    auto *top = new QHBoxLayout;
    m_deviceLabel = new QLabel(tr("Device:"), this);
    top->addWidget(m_deviceLabel);
    top->addWidget(m_device);
    top->addWidget(m_status, 1);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_stack, 1);

    connect(m_filter, &QLineEdit::textChanged, m_proxy,
            &QSortFilterProxyModel::setFilterFixedString);
    connect(m_export, &QPushButton::clicked, this, [this] {
        exportTableCsv(this, *m_proxy, QStringLiteral("pytorch_memory_events.csv"));
    });
    connect(m_device, &QComboBox::currentIndexChanged, this, &PyTorchMemoryView::showDevice);
    auto activate = [this](const QModelIndex &index) {
        const QVariant t = index.data(PyTorchMemoryEventModel::kTimeRole);
        if (t.isValid())
            emit timeActivated(core::TimePs(t.toLongLong()));
    };
    connect(m_table, &QTableView::activated, this, activate);
    connect(m_table, &QTableView::clicked, this, activate);
}

PyTorchMemoryView::~PyTorchMemoryView() = default;

QString PyTorchMemoryView::statusText() const { return m_status->text(); }
QString PyTorchMemoryView::peakText() const { return m_peaks->text(); }

bool PyTorchMemoryView::showsEmptyMessage() const
{
    return m_stack->currentWidget() == m_empty;
}

void PyTorchMemoryView::setAnalyses(AnalysisCachePtr cache)
{
    m_compute.cancel();
    m_cache = std::move(cache);
    m_result = {};
    {
        const QSignalBlocker block(m_device);
        m_device->clear();
    }
    showDevice();
    m_stack->setCurrentIndex(0);
    if (!m_cache) {
        m_status->setText(tr("No profile"));
        return;
    }
    m_status->setText(tr("Computing the memory view..."));
    AnalysisCachePtr c = m_cache;
    m_origin = m_cache->trace().begin;
    m_compute.start([c, origin = m_origin] {
        Result r{pytorchMemory(*c), {}};
        for (const DeviceMemory &d : r.memory->devices)
            r.curves.push_back({stepPoints(d.curve, false, kChartBuckets, origin),
                                stepPoints(d.curve, true, kChartBuckets, origin)});
        return r;
    });
}

void PyTorchMemoryView::showResult(Result result)
{
    m_result = std::move(result);
    const PyTorchMemory &m = *m_result.memory;
    bool anyCurve = false;
    for (const DeviceMemory &d : m.devices)
        anyCurve = anyCurve || !d.curve.empty();
    m_stack->setCurrentWidget(anyCurve ? m_stack->widget(0)
                                       : static_cast<QWidget *>(m_empty));
    if (m.recordCount == 0)
        m_empty->setText(tr("This PyTorch profile has no memory records; profile with "
                            "profile_memory=True to see the memory curves."));
    else if (!anyCurve)
        m_empty->setText(tr("This PyTorch profile's %n memory record(s) carry no allocator "
                            "totals (written since PyTorch 1.10), so there is no memory "
                            "curve.", nullptr, int(m.recordCount)));
    {
        const QSignalBlocker block(m_device);
        for (const DeviceMemory &d : m.devices)
            m_device->addItem(QString::fromStdString(d.name));
        m_device->setCurrentIndex(m.defaultDevice());
    }
    m_device->setVisible(anyCurve);
    m_deviceLabel->setVisible(anyCurve);
    if (!anyCurve) {
        m_status->clear();
    } else {
        QString s = tr("%n memory record(s)", nullptr, int(m.recordCount));
        if (m.unattributedRecords > 0)
            s += tr(", %1 outside any operator").arg(m.unattributedRecords);
        if (m.skippedRecords > 0)
            s += tr(", %1 on other device types left out").arg(m.skippedRecords);
        m_status->setText(s);
    }
    showDevice();
    emit computed();
}

void PyTorchMemoryView::showDevice()
{
    m_chart->removeAllSeries();
    for (QAbstractAxis *axis : m_chart->axes())
        m_chart->removeAxis(axis), delete axis;
    m_chart->setTitle({});
    const int device = m_device->currentIndex();
    const bool valid = m_result.memory && device >= 0
                       && size_t(device) < m_result.memory->devices.size();
    m_model->setDevice(valid ? m_result.memory : nullptr, valid ? device : -1, m_origin);
    m_table->sortByColumn(PyTorchMemoryEventModel::AllocationMs, Qt::AscendingOrder);
    m_export->setEnabled(m_model->rowCount() > 0);
    if (!valid) {
        m_peaks->clear();
        return;
    }
    const DeviceMemory &d = m_result.memory->devices[size_t(device)];
    const Curves &curves = m_result.curves[size_t(device)];
    m_peaks->setText(
        d.curve.empty()
            ? tr("No allocator totals recorded on %1.").arg(QString::fromStdString(d.name))
            : tr("Peak allocated %1 at %2 ms; peak reserved %3 at %4 ms.")
                  .arg(mbText(d.peakAllocated))
                  .arg(msFromStart(d.peakAllocatedTime), 0, 'f', 3)
                  .arg(mbText(d.peakReserved))
                  .arg(msFromStart(d.peakReservedTime), 0, 'f', 3));
    if (d.curve.empty())
        return;

    auto line = [&](const QString &name, const QList<QPointF> &points, QColor color) {
        auto *s = new QLineSeries;
        s->setName(name);
        s->append(points);
        s->setPen(QPen(color, 1.5));
        m_chart->addSeries(s);
        connect(s, &QLineSeries::clicked, this,
                [this](const QPointF &p) {
                    emit timeActivated(m_origin + core::TimePs(p.x() * 1e9));
                });
        return s;
    };
    auto peak = [&](const QString &label, core::TimePs t, int64_t bytes, QColor color) {
        auto *s = new QScatterSeries;
        s->setName(label);
        s->append(msFromStart(t), double(bytes) / kMb);
        s->setMarkerSize(9);
        s->setColor(color);
        s->setBorderColor(color.darker(140));
        s->setPointLabelsVisible(true);
        s->setPointLabelsFormat(label);   // plain text: the formatted peak, not Qt's @yPoint
        s->setPointLabelsClipping(false);
        m_chart->addSeries(s);
        return s;
    };
    const QColor allocatedColor(0x42, 0x85, 0xf4), reservedColor(0xf4, 0x8f, 0x3a);
    QList<QAbstractSeries *> series = {
        line(tr("Allocated (MB)"), curves.allocated, allocatedColor),
        line(tr("Reserved (MB)"), curves.reserved, reservedColor),
        peak(tr("Peak allocated %1").arg(mbText(d.peakAllocated)), d.peakAllocatedTime,
             d.peakAllocated, allocatedColor),
        peak(tr("Peak reserved %1").arg(mbText(d.peakReserved)), d.peakReservedTime,
             d.peakReserved, reservedColor)};

    const double x0 = msFromStart(d.curve.front().time), x1 = msFromStart(d.curve.back().time);
    const double top = double(std::max(d.peakAllocated, d.peakReserved)) / kMb;
    auto *x = new QValueAxis;
    x->setTitleText(tr("Time (ms)"));
    // A margin each side, so a peak label centred on the first or last record stays readable.
    const double span = std::max(x1 - x0, 1e-6);
    applyNiceAxis(x, x0 - 0.08 * span, x1 + 0.08 * span, 8);
    auto *y = new QValueAxis;
    y->setTitleText(tr("Memory (MB)"));
    // Headroom above the peaks for their labels.
    applyNiceAxis(y, 0, std::max(top * 1.15, 1.0));
    m_chart->addAxis(x, Qt::AlignBottom);
    m_chart->addAxis(y, Qt::AlignLeft);
    for (QAbstractSeries *s : series) {
        s->attachAxis(x);
        s->attachAxis(y);
    }
    m_chart->setTitle(tr("Memory of %1").arg(QString::fromStdString(d.name)));
    applyChartPalette(m_chartView);
}

} // namespace tracedesk::views
