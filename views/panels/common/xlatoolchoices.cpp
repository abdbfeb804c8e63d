#include "views/panels/common/xlatoolchoices.h"

#include "core/analysis/framework.h"

#include <QComboBox>
#include <QCoreApplication>

namespace tracedesk::views {

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("XlaToolChoices", text);
}

} // namespace

void addBoundByChoices(QComboBox *box)
{
    box->addItem(tr("Any bound"), QString());
    for (const char *b : {"Compute", "HBM", "Unknown"})
        box->addItem(tr("Bound by %1").arg(QLatin1String(b)), QLatin1String(b));
}

void setCategoryChoices(QComboBox *box, const std::set<QString> &categories)
{
    const QString chosen = box->currentData().toString();
    box->blockSignals(true);
    box->clear();
    box->addItem(tr("All categories"), QString());
    for (const QString &c : categories)
        box->addItem(c, c);
    box->setCurrentIndex(std::max(0, box->findData(chosen)));
    box->blockSignals(false);
}

QString xlaToolReason(const core::Trace &trace, const QString &tool)
{
    if (core::analysis::isPyTorchTrace(trace))
        return tr("%1; a PyTorch profile has none.").arg(tool);
    if (core::analysis::readsGpuWorkByRole(trace))
        return tr("%1; this GPU capture has none.").arg(tool);
    return {};
}

} // namespace tracedesk::views
